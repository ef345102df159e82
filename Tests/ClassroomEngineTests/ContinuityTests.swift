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

    @Test("the click detector finds a real discontinuity")
    func clickDetectorCanFail() async throws {
        // Guard against a detector that cannot fail: a gap in the pushed sine must show up.
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let input = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        // At 425 Hz every 10 ms buffer ends a quarter into a cycle, at the sine's peak: when the
        // feed stops, the mix jumps from the peak to silence.
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=425 volume=0.1 samplesperbuffer=480", into: input, format: EngineGraph.outputFormat)
        #expect(await OutputWarmUp.settle(engine))
        let capture = try OutputCapture(engine)
        // Stop only once the sine is really coming out.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let last = capture.all.last?.pts, capture.rms(in: last - .milliseconds(100)..<last + .milliseconds(10)) > -30 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        pump.stop()
        let stoppedAt = try #require(engine.runningTime)
        #expect(await capture.wait(until: stoppedAt + engine.outputLatency + engine.configuration.inputQueue + .milliseconds(200)))
        capture.stop()
        #expect(capture.clicks(limit: Self.sineSlopeLimit) > 0)
    }
}
