import ClassroomMeasurement
import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

/// The output plays a sample when its running time and the output latency say (WORKAROUNDS §34):
/// the echo canceller, the video and the latency budget all take that time as given.
@Suite("The output's playout against its clock", .serialized, .enabled(if: EngineSupport.hasPulse))
struct OutputAlignmentTests {
    init() throws { try EngineSupport.start() }

    /// An engine on "speaker" with a fixed buffer (a raise would reopen the stream and start its
    /// alignment over) playing ticks every 300 ms, pushed live as a feed is.
    private final class TickingEngine: Sendable {
        let engine: AudioEngine
        let pump: SignalPump

        init() throws {
            var configuration = AudioEngine.Configuration()
            configuration.outputBuffer = .fixed(OutputBuffer.start)
            engine = try AudioEngine(output: .soundServer(device: "speaker"), configuration: configuration, logger: EngineSupport.logger)
            try engine.start()
            let input = try engine.addInput(id: "ticks", kind: .effects, format: EngineGraph.outputFormat)
            pump = try SignalPump("audiotestsrc is-live=true wave=ticks tick-interval=300000000 freq=1000 volume=0.5 samplesperbuffer=480",
                                  into: input, format: EngineGraph.outputFormat)
        }

        func stop() { pump.stop(); engine.stop() }

        var tolerance: Int64 { (try? engine.outputSink.int("drift-tolerance")) ?? -1 }

        /// Waits (bounded) until the tolerance is relaxed: past the sink's corrections.
        func waitUntilRelaxed() async -> Bool {
            await waitFor(timeout: AudioEngine.alignmentLimit + .seconds(1)) { tolerance == AudioEngine.settledDriftTolerance.microseconds }
        }

        /// How much later than its running time plus the output latency each tick of 1.6 s was
        /// heard on the monitor (ms): where a tick reached the sink is captured there, where it was
        /// heard is recorded on the same system clock.
        func offsets() async throws -> [Double] {
            let recorder = try Pipeline.parse("pulsesrc device=speaker.monitor buffer-time=20000 latency-time=10000 ! "
                                              + "audio/x-raw,format=S16LE,rate=48000,channels=1 ! appsink name=heard sync=false")
            recorder.useClock(try Clock.system())
            let chunks = Mutex<[(ClockTime, [Int16])]>([])
            let sink = try recorder.element(named: "heard", as: AppSink.self)
            try sink.configure(caps: try Caps("audio/x-raw,format=S16LE,rate=48000,channels=1"), maxBuffers: 0, drop: false, sync: false)
            let token = try sink.onNewSample { sample in
                guard let buffer = sample.buffer, let pts = buffer.pts else { return }
                let samples = buffer.int16Samples()
                chunks.withLock { $0.append((pts, samples)) }
            }
            defer { _ = try? recorder.setState(.null); withExtendedLifetime(token) {} }
            try recorder.setState(.playing)
            try await Task.sleep(for: .milliseconds(500))
            let capture = try OutputCapture(engine)
            try await Task.sleep(for: .milliseconds(1_600))
            capture.stop()
            try await Task.sleep(for: .milliseconds(Int(engine.outputLatency.milliseconds) + 300))
            try recorder.setState(.null)
            let base = try #require(engine.pipeline.baseTime)
            let due = Self.onsets(capture.all.compactMap { chunk in chunk.pts.map { ($0, chunk.samples) } }, base: base, channels: EngineGraph.outputFormat.channels)
                .map { $0 + engine.outputLatency.nanoseconds }
            let heard = Self.onsets(chunks.withLock { $0 }, base: try #require(recorder.baseTime))
            return due.compactMap { time in
                heard.min { abs(Int64($0) - Int64(time)) < abs(Int64($1) - Int64(time)) }.map { Double(Int64($0) - Int64(time)) / 1e6 }
            }
        }

        /// Where each tick starts in `chunks` (interleaved `channels`), as absolute system-clock times (ns).
        private static func onsets(_ chunks: [(ClockTime, [Int16])], base: ClockTime, channels: Int = 1) -> [UInt64] {
            var heard: [UInt64] = []
            for (pts, samples) in chunks {
                guard let first = samples.firstIndex(where: { abs(Int($0)) > 3000 }) else { continue }
                let at = base.nanoseconds + pts.nanoseconds + UInt64(first / channels) * 1_000_000_000 / 48_000
                if let last = heard.last, at - last < 100_000_000 { continue }
                heard.append(at)
            }
            return heard
        }
    }

    private static func shown(_ offsets: [Double]) -> String { offsets.map { String(format: "%+.1f", $0) }.joined(separator: " ") }

    @Test("on PulseAudio a tick is heard within 15 ms of its running time plus the output latency, where the default tolerance leaves it about 20 ms late (the tolerance opened tight, relaxed once the sink stopped correcting); on PipeWire the tolerance stays pulsesink's")
    func tickPlaysOnTime() async throws {
        let ticking = try TickingEngine()
        defer { ticking.stop() }
        let relaxed = await ticking.waitUntilRelaxed()
        let tight = ticking.engine.alignment.withLock { $0.tight }
        let offsets = try await ticking.offsets()
        print("FIGURE output alignment on \(EngineSupport.onPipeWire ? "PipeWire" : "PulseAudio"): ticks heard \(Self.shown(offsets)) ms after running time + the "
              + "\(ticking.engine.outputLatency.milliseconds) ms output latency; drift tolerance \(ticking.tolerance / 1000) ms once settled, opened tight: \(tight); "
              + "\(ticking.engine.outputBuffer.underruns) underruns")
        #expect(offsets.count >= 4, "heard \(offsets.count) ticks")
        #expect(relaxed, "the tolerance was not relaxed: \(ticking.tolerance) µs")
        if EngineSupport.onPipeWire {
            #expect(!tight, "PipeWire's pulse server: the tolerance stays pulsesink's default")
        } else {
            #expect(tight)
            // Alone −2.9 to +2.9 ms in 13 of 15 runs, +10.1 and +11.9 in two with more underflows than usual
            // around the start (not understood); in whole device passes −0.3 to +8.8 (7 passes); at
            // pulsesink's default +19.4 to +27.7 (WORKAROUNDS §34).
            #expect(offsets.allSatisfy { abs($0) <= 15 }, "ticks heard \(offsets) ms off their time")
        }
    }
}
