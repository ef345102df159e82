import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Continuity of the output")
struct ContinuityTests {
    init() throws { try EngineSupport.start() }

    /// A 500 Hz sine at 0.1 peak moves at most 0.1·2π·500/48000 of full scale per sample.
    private static let sineSlopeLimit = ContinuityMeter.clickLimit(sines: [(0.1, 500)])

    @Test("20 mic connect/disconnect cycles with profile switches leave no gap, DISCONT or click in the output")
    func micCycles() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        #expect(await OutputWarmUp.settle(engine))
        let capture = try OutputCapture(engine)
        for cycle in 0..<20 {
            let uplink = try engine.connectMicrophone(.pushed, processing: .voice) { _ in }
            try await Task.sleep(for: .milliseconds(50))
            try uplink.reconfigure(cycle.isMultiple(of: 2) ? .off : .voice)
            engine.disconnectMicrophone()
            try await Task.sleep(for: .milliseconds(30))
        }
        let end = try #require(capture.all.last?.pts)
        #expect(await capture.wait(until: end + .milliseconds(200)))
        capture.stop()
        let continuity = capture.continuity()
        let clicks = capture.clicks(limit: Self.sineSlopeLimit)
        print("FIGURE continuity over 20 mic cycles: \(continuity.buffers) buffers, \(continuity.gaps) gaps, \(continuity.discontinuities) DISCONT, \(clicks) clicks")
        #expect(continuity.buffers > 100)
        #expect(continuity.gaps == 0)
        #expect(continuity.discontinuities == 0)
        #expect(clicks == 0)
    }

    @Test("the uplink stays continuous across profile switches: every processed frame follows the previous one, no 10 ms frame missing")
    func uplinkAcrossProfileSwitches() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let stamps = Locked<[ClockTime]>([])
        let uplink = try engine.connectMicrophone(.pushed, processing: .voice) { frame in
            if let timestamp = frame.timestamp { stamps.withLock { $0.append(timestamp) } }
        }
        let microphone = try #require(uplink.pushedInput)
        // A 300 Hz tone in 10 ms frames, timestamped on one grid, as a capture device delivers them.
        let sine = (0..<480).map { Int16(3_000 * sin(2 * Double.pi * 300 * Double($0) / 48_000)) }
        let origin = try #require(engine.runningTime)
        let pushed = Locked(0)
        let feeder = Thread {
            for index in 0..<300 {
                _ = try? microphone.push(sine, pts: origin + .milliseconds(10 * index))
                pushed.withLock { $0 += 1 }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        feeder.start()
        for cycle in 0..<10 {
            try await Task.sleep(for: .milliseconds(200))
            try uplink.reconfigure([VoiceProcessing.off, .voice][cycle % 2])
        }
        #expect(await waitFor { pushed.withLock { $0 } >= 300 })
        try await Task.sleep(for: .milliseconds(300))
        let frames = stamps.withLock { $0 }
        let steps = zip(frames.dropFirst(), frames).map { Int64($0.nanoseconds) - Int64($1.nanoseconds) }
        let gaps = steps.filter { $0 != 10_000_000 }
        let span = [frames.first, frames.last].map { $0.map { "\((Double($0.nanoseconds) - Double(origin.nanoseconds)) / 1e6) ms" } ?? "-" }
        print("FIGURE uplink across 10 profile switches: \(frames.count) frames, \(gaps.count) steps other than 10 ms \(gaps.prefix(5)); "
              + "\(uplink.framesDelivered) delivered, first and last at \(span) after the first push's time")
        #expect(frames.count >= 280)
        #expect(gaps.isEmpty)
    }

    @Test("the click detector finds a real discontinuity")
    func clickDetectorCanFail() async throws {
        // Guard against a detector that cannot fail: a step in the mix must show up. The step is
        // 10 ms of a constant −20 dBFS on a second input, on top of a −20 dBFS sine: 3277 at each
        // edge against the sine's 214 per sample. (Stopping the sine's feed was used before; its
        // last buffer ends on a zero crossing every other time, so that version could miss.)
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let input = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: input, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        #expect(await OutputWarmUp.settle(engine))
        let capture = try OutputCapture(engine)
        #expect(await capture.wait(until: (engine.runningTime ?? .zero) + .milliseconds(300)))
        let jolt = try engine.addRTCInput(id: "rtc-jolt", format: EngineGraph.outputFormat)
        _ = try jolt.push([Int16](repeating: 3277, count: 960))
        let pushedAt = try #require(engine.runningTime)
        #expect(await capture.wait(until: pushedAt + engine.outputLatency + engine.configuration.inputQueue + .milliseconds(200)))
        capture.stop()
        #expect(capture.clicks(limit: Self.sineSlopeLimit) > 0)
    }
}
