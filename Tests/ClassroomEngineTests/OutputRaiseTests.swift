import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// The output buffer's raise on a real sound server: the engine's mix thread is held once, the
/// server runs out and says so, and the engine reopens its stream with a larger buffer.
///
/// Nothing records the device's monitor here: a recording of the monitor keeps a PulseAudio null
/// sink's latency low by itself, and would hide what this checks (WORKAROUNDS §28).
@Suite("The output buffer's raise on a sound server", .serialized, .enabled(if: EngineSupport.hasPulse))
struct OutputRaiseTests {
    init() throws { try EngineSupport.start() }

    @Test("a raise keeps the mix going: the sink takes buffers again within 0.4 s of the reopen, and no courseware push is dropped")
    func raiseKeepsTheMixGoing() async throws {
        let mix = try await HeldMix()
        defer { mix.stop() }
        let droppedBefore = mix.courseware.droppedPushes
        let raise = try await mix.holdUntilRaised()
        try await Task.sleep(for: .seconds(2))
        // From 300 ms before the raise was said (the reopen comes 500 ms after the underrun) to now.
        let after = mix.arrivals.withLock { $0 }.filter { $0 + 300_000_000 >= raise.at }
        let gaps = zip(after, after.dropFirst()).map { Double($1 - $0) / 1e6 }
        let longest = gaps.max() ?? .infinity
        print("FIGURE output raise: buffer \(raise.buffer.milliseconds) ms, \(mix.engine.outputBuffer.underruns) underrun(s); longest wait between buffers at the sink around the reopen \(String(format: "%.0f", longest)) ms over \(after.count) buffers; courseware pushes dropped \(mix.courseware.droppedPushes - droppedBefore)")
        #expect(raise.buffer == OutputBuffer.start + OutputBuffer.step)
        #expect(after.count > 150, "the sink should have gone on taking buffers after the raise: \(after.count) in 2.3 s")
        #expect(longest < 400, "the reopen held the mix \(String(format: "%.0f", longest)) ms: the server held the new stream")
        #expect(mix.courseware.droppedPushes == droppedBefore, "the courseware lost pushes while the mix was held")
    }

    @Test("an engine stopped just after a raise lets go of the stream that kept its device busy, at once")
    func stopReleasesTheKeeper() async throws {
        let mix = try await HeldMix()
        defer { mix.stop() }
        _ = try await mix.holdUntilRaised()
        weak let keeper = mix.engine.underrunWatch.keeper
        #expect(keeper != nil, "the raise should have kept the device busy while it reopened")
        mix.engine.stop()
        // A keeper held by its timed releases would live up to 5 s past the engine, and a test
        // process ending meanwhile reports its pipeline as leaked.
        #expect(keeper == nil, "the stopped engine's keeper is still alive")
        let streams = try PulseAudioControl.pactl("list", "sink-inputs")
        #expect(!streams.contains("classroom-audio-keeper"), "a keeper's stream is still on the server")
    }
}

/// An engine on the "speaker" playing courseware, past its start-up, whose mix thread can be held
/// once (150 ms, five times the 30 ms buffer): the server runs out and the engine raises its buffer.
private final class HeldMix: Sendable {
    let engine: AudioEngine
    let courseware: AudioInput
    /// When each buffer reached the sink (uptime ns).
    let arrivals = Locked<[UInt64]>([])
    private let pump: SignalPump
    private let holdOnce = Locked(false)
    private let raises = Locked<[(buffer: ClockTime, at: UInt64)]>([])
    private let tap: PadProbe?
    private let watch: ObservationToken

    init() async throws {
        engine = try AudioEngine(output: .soundServer(device: "speaker"), logger: EngineSupport.logger)
        try engine.start()
        let started = ContinuousClock.now
        courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480",
                              into: courseware, format: EngineGraph.outputFormat)
        let (arrivals, holdOnce, raises) = (arrivals, holdOnce, raises)
        tap = try engine.tapOutput { _ in
            if holdOnce.withLock({ hold in defer { hold = false }; return hold }) { Thread.sleep(forTimeInterval: 0.15) }
            arrivals.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) }
        }
        watch = engine.observe { event in
            if case .outputUnderrun(let buffer, _) = event { raises.withLock { $0.append((buffer, DispatchTime.now().uptimeNanoseconds)) } }
        }
        #expect(await OutputWarmUp.settle(engine, input: courseware))
        // Underruns while the server settles a new stream do not count (OutputBuffer.settlingAfterStart).
        let settled = started + .nanoseconds(Int64(OutputBuffer.settlingAfterStart.nanoseconds)) + .milliseconds(500)
        if ContinuousClock.now < settled { try await Task.sleep(until: settled) }
    }

    /// Holds the mix once and waits for the raise it brings (3 s at most).
    func holdUntilRaised() async throws -> (buffer: ClockTime, at: UInt64) {
        try await Task.sleep(for: .milliseconds(300))
        holdOnce.withLock { $0 = true }
        #expect(await waitFor(timeout: .seconds(3)) { !raises.withLock { $0.isEmpty } }, "the held thread should have underrun the device and raised the buffer")
        return try #require(raises.withLock { $0.first })
    }

    func stop() {
        watch.cancel()
        pump.stop()
        engine.stop()
    }
}
