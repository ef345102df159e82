import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// What the sound server gets while no input has anything to mix: the mixer's GAP buffers,
/// played as the silence they hold (WORKAROUNDS §35).
@Suite("Silence from the mixer on a sound server", .serialized, .enabled(if: EngineSupport.hasPulse))
struct OutputSilenceTests {
    init() throws { try EngineSupport.start() }

    @Test("a feed that stops while it is the mixer's only input leaves the output running: no underrun, the buffer stays")
    func stoppedFeedKeepsTheOutputFed() async throws {
        let engine = try AudioEngine(output: .soundServer(device: "speaker"), logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let started = ContinuousClock.now
        let feed = try engine.addInput(id: "rtc-teacher", kind: .rtc, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=300 volume=0.1 samplesperbuffer=480",
                                  into: feed, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        #expect(await OutputWarmUp.settle(engine, input: feed))
        // Underruns while the server settles a new stream do not count (OutputBuffer.settlingAfterStart).
        let settled = started + .nanoseconds(Int64(OutputBuffer.settlingAfterStart.nanoseconds)) + .seconds(1)
        if ContinuousClock.now < settled { try await Task.sleep(until: settled) }
        let (underrunsBefore, bufferBefore) = (engine.outputBuffer.underruns, engine.outputBuffer.size)

        // The teacher's connection drops: nothing is pushed any more, and the mixer makes GAP buffers.
        pump.stop()
        try await Task.sleep(for: .seconds(2))
        let underruns = engine.outputBuffer.underruns - underrunsBefore
        print("FIGURE stopped feed: \(underruns) underrun(s) in the 2 s after the only feed stopped; output buffer \(bufferBefore.milliseconds) → \(engine.outputBuffer.size.milliseconds) ms")
        // Before: pulsesink wrote nothing for the GAP buffers, the server's stream ran dry within
        // 30 ms and the engine raised its buffer 30 → 50 ms for the rest of the class.
        #expect(underruns == 0, "the output underran after its only feed stopped: the mixer's silence did not reach the server")
        #expect(engine.outputBuffer.size == bufferBefore, "the output buffer grew after the feed stopped")
    }
}
