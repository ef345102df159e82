import Testing
@testable import ClassroomNetwork
import GStreamer

@Suite("Adaptive jitter buffer: the measure and the policy")
struct JitterBufferPolicyTests {
    /// 20 ms Opus packets (960 ticks at 48 kHz) sent every 20 ms; `late(i)` ms added to packet i's arrival.
    private func measure(_ count: Int, shortFirstStep: Bool = false, late: (Int) -> Double) -> ArrivalJitter {
        var jitter = ArrivalJitter(window: .seconds(5))
        // The first step is 312 ticks short (648), as opusenc's pre-skip makes it.
        let arrivals = (0..<count).map { (index: $0, at: UInt64((Double($0) * 20 + late($0)) * 1e6) + 1_000_000_000) }.sorted { $0.at < $1.at }
        for packet in arrivals { jitter.record(arrival: packet.at, sequence: UInt16(truncatingIfNeeded: 65_500 + packet.index), timestamp: UInt32(truncatingIfNeeded: 4_294_000_000 + packet.index * 960 + (shortFirstStep && packet.index == 0 ? 312 : 0)), clockRate: 48_000) }
        return jitter
    }

    @Test("a steady stream needs nothing beyond one packet, whatever its constant delay, across the timestamp's wrap and past an encoder's short first packet")
    func steady() {
        let jitter = measure(200, shortFirstStep: true) { _ in 35 }
        #expect(jitter.packetTime == .milliseconds(20))
        // Only that first packet's transit stands out (by its 6.5 ms): still one packet's need.
        let spread = jitter.spread(percentile: 0.98)
        #expect(spread <= .microseconds(6_500), "\(spread)")
        #expect(JitterBufferPolicy.need(spread: spread, packetTime: .milliseconds(20)) == .milliseconds(20))
    }

    @Test("packets late by up to 40 ms, some overtaking others, need about 40 ms; the packet time survives the reordering")
    func jittery() {
        // 0…40 ms in a fixed shuffled order (37 and 41 are coprime): every lateness once per 41 packets.
        let jitter = measure(250) { Double(($0 * 37) % 41) }
        let spread = jitter.spread(percentile: 0.98)
        #expect(jitter.packetTime == .milliseconds(20))
        #expect(spread >= .milliseconds(34) && spread <= .milliseconds(40), "\(spread)")
        #expect(JitterBufferPolicy.need(spread: spread, packetTime: .milliseconds(20)) >= .milliseconds(40))
    }

    @Test("the delay goes up at once, and down 10 ms at a time, only after 3 s of calm and 3 s apart, never below the need")
    func policy() {
        var policy = JitterBufferPolicy()
        let second: UInt64 = 1_000_000_000
        #expect(policy.update(need: .milliseconds(45), now: 1 * second) == .milliseconds(45))
        #expect(policy.update(need: .milliseconds(20), now: 2 * second) == nil)
        #expect(policy.update(need: .milliseconds(20), now: 4 * second) == nil)
        #expect(policy.update(need: .milliseconds(20), now: 5 * second) == .milliseconds(35))
        #expect(policy.update(need: .milliseconds(20), now: 6 * second) == nil)
        #expect(policy.update(need: .milliseconds(20), now: 8 * second) == .milliseconds(25))
        #expect(policy.update(need: .milliseconds(20), now: 11 * second) == .milliseconds(20))
        #expect(policy.update(need: .milliseconds(20), now: 20 * second) == nil)
        #expect(policy.update(need: .milliseconds(60), now: 21 * second) == .milliseconds(60))
        #expect(JitterBufferPolicy.need(spread: .seconds(1), packetTime: .milliseconds(20)) == JitterBufferPolicy.ceiling)
    }

    /// 20 ms packets of a steady stream, from packet `from` on, each arriving 35 ms after it was sent.
    private func steady(_ jitter: inout ArrivalJitter, from: Int, count: Int, ssrc: UInt32 = 7) {
        for index in from..<(from + count) {
            jitter.record(arrival: UInt64(index) * 20_000_000 + 35_000_000, ssrc: ssrc, sequence: UInt16(truncatingIfNeeded: index),
                          timestamp: UInt32(truncatingIfNeeded: index * 960), clockRate: 48_000)
        }
    }

    @Test("ten packets whose timestamps step by +0x7fffffff neither trap nor stay in the measure: the stream's next packets are measured afresh")
    func forgedTimestampSteps() {
        var jitter = ArrivalJitter()
        steady(&jitter, from: 0, count: 100)
        for forged in 0..<10 {
            jitter.record(arrival: UInt64(100 + forged) * 20_000_000 + 35_000_000, ssrc: 7, sequence: UInt16(100 + forged),
                          timestamp: UInt32(truncatingIfNeeded: 0x7fff_ffff &* (forged + 1)), clockRate: 48_000)
        }
        steady(&jitter, from: 110, count: 100)
        #expect(jitter.restarts >= 10)
        #expect(jitter.spread(percentile: 0.98) <= .milliseconds(1))
        #expect(jitter.packetTime == .milliseconds(20))
    }

    @Test("an honest stream measures the same after 55 hours: media time never overflows")
    func longStream() {
        var jitter = ArrivalJitter()
        // One packet a second for 55 h (48 000 ticks each) wraps the timestamp 2.6 times.
        for index in 0..<(55 * 3_600) {
            jitter.record(arrival: UInt64(index) * 1_000_000_000 + UInt64(index % 2) * 30_000_000, ssrc: 7, sequence: UInt16(truncatingIfNeeded: index),
                          timestamp: UInt32(truncatingIfNeeded: index &* 48_000), clockRate: 48_000)
        }
        #expect(jitter.restarts == 0)
        #expect(jitter.spread(percentile: 0.98) == .milliseconds(30))
    }

    @Test("a sender restarted six times with forward timestamps, and a new SSRC, each start the measure afresh")
    func restarts() {
        var jitter = ArrivalJitter()
        for restart in 0..<6 {
            for index in 0..<50 {
                let packet = restart * 50 + index
                jitter.record(arrival: UInt64(packet) * 20_000_000, ssrc: 7, sequence: UInt16(truncatingIfNeeded: packet),
                              timestamp: UInt32(truncatingIfNeeded: restart * 900_000_000 + index * 960), clockRate: 48_000)
            }
        }
        #expect(jitter.restarts == 5)
        steady(&jitter, from: 300, count: 30, ssrc: 8)
        #expect(jitter.restarts == 6)
        #expect(jitter.count == 30)
    }

    @Test("packets the receiver already had, 250 ms late, five a second, are not measured: the need stays one packet")
    func staleDuplicates() {
        var jitter = ArrivalJitter()
        for index in 0..<250 {
            jitter.record(arrival: UInt64(index) * 20_000_000, ssrc: 7, sequence: UInt16(index), timestamp: UInt32(index * 960), clockRate: 48_000)
            if index % 10 == 0, index >= 13 {
                // A copy of the packet sent 260 ms before (13 packets back), arriving now.
                jitter.record(arrival: UInt64(index) * 20_000_000 + 10_000_000, ssrc: 7, sequence: UInt16(index - 13),
                              timestamp: UInt32((index - 13) * 960), clockRate: 48_000)
            }
        }
        #expect(jitter.spread(percentile: 0.98) <= .milliseconds(1))
        #expect(jitter.count == 250)
    }

    @Test("one packet far ahead in sequence does not stop the stream's own packets from being measured")
    func forgedSequenceJump() {
        var jitter = ArrivalJitter()
        steady(&jitter, from: 0, count: 50)
        jitter.record(arrival: 50 * 20_000_000 + 35_000_000, ssrc: 7, sequence: 30_000, timestamp: 50 * 960, clockRate: 48_000)
        steady(&jitter, from: 51, count: 50)
        // Three of the stream's own packets resynchronise; the rest are measured.
        #expect(jitter.count >= 45)
        #expect(jitter.spread(percentile: 0.98) <= .milliseconds(1))
    }
}
