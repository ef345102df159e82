import Foundation
import Synchronization
import Testing
@testable import ClassroomNetwork
import GStreamer

@Suite("Opus FEC decoding in our receivers: one packet of latency from the first loss, lost speech rebuilt")
struct OpusFECDecoderTests {
    private static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples")

    @Test("an Opus packet's TOC byte says how much audio it carries", arguments: [([UInt8], Double)]([
        ([UInt8(0x08)], 20.0),                 // SILK NB, 20 ms, one frame
        ([UInt8(0x70)], 10.0),                 // hybrid FB, 10 ms
        ([UInt8(0xf8)], 20.0),                 // CELT FB, 20 ms
        ([UInt8(0xe0)], 2.5),                  // CELT FB, 2.5 ms
        ([UInt8(0xf9)], 40.0),                 // CELT FB 20 ms, code 1: two frames
        ([UInt8(0x1b), 0x03], 180.0),          // SILK 60 ms, code 3, three frames: over 120 ms, malformed
        ([UInt8(0x03)], -1),                   // code 3 without its count byte
        ([], -1),
    ]))
    func packetDuration(packet: [UInt8], milliseconds: Double) {
        let duration = OpusPacket.duration(of: packet)
        if milliseconds < 0 || milliseconds > 120 {
            #expect(duration == nil)
        } else {
            #expect(duration == .microseconds(Int(milliseconds * 1000)))
        }
    }

    @Test("one 120 ms packet among 20 ms ones does not make the packet time 120 ms; a sender's longest packets in use do, and age out")
    func packetTimeTally() {
        var tally = PacketTimeTally()
        #expect(tally.packetTime == nil)
        for _ in 0..<10 { tally.record(.milliseconds(20)) }
        tally.record(.milliseconds(120))
        for _ in 0..<40 { tally.record(.milliseconds(20)) }
        #expect(tally.packetTime == .milliseconds(20))
        // A sender alternating 20 and 40 ms packets holds 40 ms, steadily.
        for index in 0..<60 { tally.record(.milliseconds(index % 2 == 0 ? 20 : 40)) }
        #expect(tally.packetTime == .milliseconds(40))
        // Once it sends only 10 ms packets, the 40 ms ones age out.
        for _ in 0..<PacketTimeTally.reach { tally.record(.milliseconds(10)) }
        #expect(tally.packetTime == .milliseconds(10))
    }

    /// What `latency(packetTime:losing:decoder:)` saw.
    private struct Run {
        var minimum: ClockTime
        var isLive: Bool
        /// LATENCY messages the decoder posted.
        var posted: Int
        /// Where the decoder's output broke: a buffer that did not start where the previous ended (ns off).
        var breaks: [Int64]
    }

    /// Runs 0.5 s of a live tone in `packetTime` ms Opus packets (with FEC) through a jitter buffer
    /// and `decoder`, losing packet number `lost` (if any) on the way, and says what came out.
    private func latency(packetTime: Int, losing lost: Int? = nil, decoder makeDecoder: () throws -> (Element, AnyObject?)) throws -> Run {
        try GStreamer.initialize()
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true num-buffers=50 samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=1 ! "
                                          + "opusenc frame-size=\(packetTime) inband-fec=true packet-loss-percentage=10 ! rtpopuspay ! identity name=network ! "
                                          + "rtpjitterbuffer do-lost=true latency=20 ! rtpopusdepay name=depay")
        let (decoder, keep) = try makeDecoder()
        let sink = try ElementFactory.make("fakesink", properties: ["sync": true])
        try pipeline.add([decoder, sink])
        try Element.link([try #require(pipeline.element(named: "depay")), decoder, sink])
        let count = Atomic<Int>(0)
        let drop = try #require(pipeline.element(named: "network")).staticPad("sink").addProbe(.buffer) { _ in
            count.add(1, ordering: .relaxed).newValue == lost ? .drop : .ok
        }
        // Breaks of more than one sample (timestamps round to the ns), after the first buffer: the
        // encoder's 6.5 ms look-ahead is clipped from the first packet, which every decoder shows.
        let ends = Mutex<(end: UInt64?, buffers: Int, breaks: [Int64])>((nil, 0, []))
        let watch = try decoder.staticPad("src").addProbe(.buffer) { info in
            guard let buffer = info.buffer, let pts = buffer.pts, let duration = buffer.duration else { return .ok }
            ends.withLock { state in
                let off = state.end.map { Int64(pts.nanoseconds) - Int64($0) } ?? 0
                if state.buffers > 1, abs(off) > 20_833 { state.breaks.append(off) }
                state.end = pts.nanoseconds + duration.nanoseconds
                state.buffers += 1
            }
            return .ok
        }
        let posted = Atomic<Int>(0)
        let subscription = pipeline.bus.subscribe { message in
            if case .latency = message.view, message.source == decoder.name { posted.add(1, ordering: .relaxed) }
        }
        defer { subscription.cancel(); _ = try? pipeline.setState(.null); withExtendedLifetime((keep, drop, watch)) {} }
        let end = try pipeline.bus.waitForMessage(timeout: .seconds(10), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            if case .endOfStream = message.view { return true }
            return false
        }
        try #require(end != nil, "0.5 s of audio did not end within 10 s")
        let answer = try pipeline.latency()
        return Run(minimum: answer.minimum, isLive: answer.isLive, posted: posted.load(ordering: .relaxed), breaks: ends.withLock { $0.breaks })
    }

    @Test("a stream that loses nothing holds no packet; from its first loss the decoder holds one (10 and 20 ms, measured from the packets), says so once, and its output stays contiguous, where opusdec's own FEC adds 120 ms")
    func packetHeldFromFirstLoss() throws {
        for packetTime in [10, 20] {
            let held = Mutex<[ClockTime]>([])
            var decoders: [OpusFECDecoder] = []
            func ours() throws -> (Element, AnyObject?) {
                let opus = try OpusFECDecoder(name: "fec-decoder") { packet in held.withLock { $0.append(packet) } }
                decoders.append(opus)
                return (opus.element, opus)
            }
            let clean = try latency(packetTime: packetTime, decoder: ours)
            let cleanHeld = held.withLock { $0 }
            let lossy = try latency(packetTime: packetTime, losing: 12, decoder: ours)
            let plainFEC = try latency(packetTime: packetTime) { (try ElementFactory.make("opusdec", properties: ["plc": true, "use-inband-fec": true]), nil) }
            // The same chain decoding without FEC (no packet held): what every other stage adds.
            let concealOnly = try latency(packetTime: packetTime) { (try ElementFactory.make("opusdec", properties: ["plc": true]), nil) }
            print("FIGURE \(packetTime) ms packets: pipeline latency with FEC decoded here \(clean.minimum) before any loss, \(lossy.minimum) after one; "
                  + "with opusdec's use-inband-fec \(plainFEC.minimum), PLC alone \(concealOnly.minimum); said \(held.withLock { $0 }); breaks \(clean.breaks) / \(lossy.breaks)")
            #expect(clean.minimum == concealOnly.minimum)
            #expect(cleanHeld.isEmpty && clean.posted == 0 && decoders.first?.isHolding == false)
            #expect(lossy.minimum == concealOnly.minimum + .milliseconds(packetTime))
            #expect(held.withLock { $0 } == [.milliseconds(packetTime)], "said once, with the stream's packet")
            #expect(lossy.posted >= 1, "the hold posted no LATENCY message")
            #expect(clean.breaks.isEmpty && lossy.breaks.isEmpty, "the decoded audio broke: \(clean.breaks) / \(lossy.breaks) ns")
            #expect(plainFEC.minimum == concealOnly.minimum + .milliseconds(120))
            #expect(clean.isLive && lossy.isLive)
        }
    }

    @Test("a stream whose packets change keeps the longest packet in use as the one it would hold: 10, then 20, then 10 ms is 20 ms")
    func longestPacketKept() throws {
        try GStreamer.initialize()
        // concat plays the three encodings one after the other, into one decoder.
        let segments = [10, 20, 10].map { size in
            "audiotestsrc num-buffers=20 samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=1 ! opusenc frame-size=\(size) ! c. "
        }.joined()
        let pipeline = try Pipeline.parse("concat name=c " + segments)
        let opus = try OpusFECDecoder(name: "fec-decoder")
        let sink = try ElementFactory.make("fakesink", properties: ["sync": false])
        try pipeline.add([opus.element, sink])
        try Element.link([try #require(pipeline.element(named: "c")), opus.element, sink])
        let seen = Mutex<[ClockTime]>([])
        let watch = try opus.element.staticPad("sink").addProbe(.buffer) { _ in
            seen.withLock { $0.append(opus.packetTime) }
            return .ok
        }
        defer { watch?.remove(); _ = try? pipeline.setState(.null) }
        let end = try pipeline.bus.waitForMessage(timeout: .seconds(10), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        try #require(end != nil)
        if case .error(let error, _)? = end?.view { Issue.record("the pipeline failed: \(error.message)") }
        let latencies = seen.withLock { $0 }
        // The decoder's own probe runs first: each entry is the packet time once that packet was measured.
        // The assumed 20 ms holds until `quorum` packets carry one size.
        let quorum = PacketTimeTally.quorum
        #expect(latencies.prefix(quorum - 1).allSatisfy { $0 == OpusFECDecoder.assumedPacketTime }, "\(latencies)")
        #expect(latencies.count > quorum && latencies[quorum - 1] == .milliseconds(10), "\(latencies)")
        let firstLong = try #require(latencies[(quorum - 1)...].firstIndex(of: .milliseconds(20)))
        #expect(latencies[firstLong...].allSatisfy { $0 == .milliseconds(20) }, "\(latencies)")
        #expect(latencies.count >= 50)   // 200 ms in each encoding: 20 + 10 + 20 packets
        #expect(opus.packetTime == .milliseconds(20))
        // Nothing was lost, so nothing is held and nothing added to what is upstream.
        let upstream = try #require(try opus.element.staticPad("sink").peerLatency())
        #expect(!opus.isHolding && opus.latency == .zero)
        #expect(try opus.element.latency().minimum == upstream.minimum)
    }

    /// Int16 samples of `wanted` placed by their buffers' timestamps (48 kHz mono).
    private final class Recording: Sendable {
        private let samples = Mutex<[Int: Int16]>([:])
        func record(_ sample: Sample) {
            guard let buffer = sample.buffer, let pts = buffer.pts else { return }
            let first = Int((Double(pts.nanoseconds) * 48_000 / 1e9).rounded())
            let values = buffer.int16Samples()
            samples.withLock { for (offset, value) in values.enumerated() { $0[first + offset] = value } }
        }
        func value(at index: Int) -> Double { samples.withLock { Double($0[index] ?? 0) } }
    }

    @Test("with every 10th packet of speech lost, the FEC decoder rebuilds the lost packets far closer to the lossless decode than concealment alone")
    func lostSpeechRebuilt() throws {
        try GStreamer.initialize()
        let speech = Self.samples.appendingPathComponent("student-mic.ogg").path
        // Real-time pacing (clocksync), so the jitter buffers declare losses as on a network.
        let pipeline = try Pipeline.parse("""
            filesrc location=\(speech) ! oggdemux ! opusdec ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=1 ! clocksync ! \
            opusenc frame-size=20 audio-type=voice inband-fec=true packet-loss-percentage=10 ! rtpopuspay ! tee name=t \
            t. ! queue ! rtpopusdepay ! opusdec ! appsink name=lossless \
            t. ! queue ! identity name=lossy-plc ! rtpjitterbuffer do-lost=true latency=60 ! rtpopusdepay ! opusdec plc=true ! appsink name=concealed \
            t. ! queue ! identity name=lossy-fec ! rtpjitterbuffer do-lost=true latency=60 ! rtpopusdepay name=depay
            """)
        let opus = try OpusFECDecoder(name: "fec-decoder")
        let rebuiltSink = try AppSink.make(name: "rebuilt")
        try pipeline.add([opus.element, rebuiltSink])
        try Element.link([try #require(pipeline.element(named: "depay")), opus.element, rebuiltSink])
        let format = try Caps("audio/x-raw,format=S16LE,rate=48000,channels=1")
        var recordings: [Recording] = []
        var tokens: [AnyObject] = [opus]
        for name in ["lossless", "concealed", "rebuilt"] {
            let sink = try pipeline.element(named: name, as: AppSink.self)
            try sink.configure(caps: format, maxBuffers: 0, drop: false, sync: false)
            let recording = Recording()
            recordings.append(recording)
            tokens.append(try sink.onNewSample { recording.record($0) })
        }
        // The same packets lost on both lossy branches: every 10th, counted per branch.
        let lost = Mutex<Set<UInt64>>([])
        for name in ["lossy-plc", "lossy-fec"] {
            let count = Atomic<Int>(0)
            let probe = try #require(pipeline.element(named: name)).staticPad("sink").addProbe(.buffer) { info in
                guard count.add(1, ordering: .relaxed).newValue % 10 == 0 else { return .ok }
                if let pts = info.buffer?.pts { lost.withLock { _ = $0.insert(pts.nanoseconds) } }
                return .drop
            }
            tokens.append(try #require(probe))
        }
        defer { _ = try? pipeline.setState(.null); withExtendedLifetime(tokens) {} }
        let end = try pipeline.bus.waitForMessage(timeout: .seconds(20), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        if case .error(let error, _)? = end?.view { Issue.record("the pipeline failed: \(error.message)") }
        try #require(end != nil, "6 s of speech did not end within 20 s")
        try pipeline.setState(.null)

        // Each lost packet's 20 ms against the same 20 ms decoded without loss (sample-aligned by timestamp).
        let packets = lost.withLock { $0.sorted() }
        func snr(_ recording: Recording) -> Double {
            var (energy, noise) = (0.0, 0.0)
            for pts in packets {
                let first = Int((Double(pts) * 48_000 / 1e9).rounded())
                for index in first..<(first + 960) {
                    let reference = recordings[0].value(at: index), error = recording.value(at: index) - reference
                    energy += reference * reference
                    noise += error * error
                }
            }
            return 10 * log10(max(energy, 1) / max(noise, 1))
        }
        let (concealed, rebuilt) = (snr(recordings[1]), snr(recordings[2]))
        print("FIGURE \(packets.count) of about 300 packets of speech lost: rebuilt from FEC at \(String(format: "%.1f", rebuilt)) dB SNR, "
              + "concealed (PLC) at \(String(format: "%.1f", concealed)) dB, against the lossless decode")
        #expect(packets.count >= 25)
        #expect(rebuilt > 10)
        #expect(rebuilt > concealed + 6)
    }
}
