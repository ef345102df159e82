import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Audio engine")
struct AudioEngineTests {
    init() throws { try EngineSupport.start() }

    @Test("a −20 dBFS courseware tone comes out at −20 dBFS, and connecting the mic does not change it")
    func mediaLevelAcrossMicConnect() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        // 0.1 peak sine = −20 dBFS peak, −23.01 dBFS RMS; 500 Hz fits 10 ms windows exactly.
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        let capture = try OutputCapture(engine)
        let connectAt = ClockTime.seconds(1.5)
        #expect(await capture.wait(until: connectAt))
        let uplink = try engine.connectMicrophone(.pushed, processing: .voice) { _ in }
        #expect(uplink.voiceProcessing == .voice)
        #expect(await capture.wait(until: connectAt + .seconds(1.2)))
        let before = capture.rms(in: connectAt - .seconds(1)..<connectAt)
        let after = capture.rms(in: connectAt + .milliseconds(100)..<connectAt + .seconds(1.1))
        #expect(abs(before - -23.01) < 0.2)
        #expect(abs(after - before) <= 0.1)
        let continuity = capture.continuity()
        #expect(continuity.gaps == 0)
        #expect(continuity.discontinuities == 0)
    }
}
