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
        for packet in arrivals { jitter.record(arrival: packet.at, timestamp: UInt32(truncatingIfNeeded: 4_294_000_000 + packet.index * 960 + (shortFirstStep && packet.index == 0 ? 312 : 0)), clockRate: 48_000) }
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
}
