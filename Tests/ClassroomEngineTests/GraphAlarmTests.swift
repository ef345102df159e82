import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Alarms from the running graph")
struct GraphAlarmTests {
    init() throws { try EngineSupport.start() }


    @Test("1031: a connected microphone that stays silent raises recordingLevelTooLow; speech clears it")
    func lowRecordingLevel() async throws {
        var alarms = SessionController.AlarmSettings()
        alarms.lowRecordingDuration = .seconds(1)
        let controller = try SessionController(output: .discard, microphone: .fixed(.pushed), alarms: alarms, logger: EngineSupport.logger)
        try controller.start()
        defer { controller.stop() }
        try controller.connectMicrophone()
        let mic = try #require(controller.engine.uplink?.pushedInput)
        // A pushed microphone paced by its own clock: silence first.
        let silence = try MicFeed("audiotestsrc is-live=true wave=silence samplesperbuffer=480", into: mic, engine: controller.engine)
        let raised = await waitFor { controller.session.resolvedState.alarms.contains { $0.code == .recordingLevelTooLow } }
        #expect(raised)
        silence.stop()
        let voice = try MicFeed("audiotestsrc is-live=true wave=pink-noise volume=0.3 samplesperbuffer=480", into: mic, engine: controller.engine)
        defer { voice.stop() }
        let cleared = await waitFor { !controller.session.resolvedState.alarms.contains { $0.code == .recordingLevelTooLow } }
        #expect(cleared)
    }

    @Test("mediaSuppressed: the courseware turned down behind the session's back raises it; a duck does not")
    func mediaSuppressed() async throws {
        var settings = SessionSettings()
        settings.duckRamp = .milliseconds(100)
        let controller = try SessionController(output: .discard, settings: settings, microphone: .fixed(.pushed), logger: EngineSupport.logger)
        try controller.start()
        defer { controller.stop() }
        let courseware = try controller.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        let suppressed = { controller.session.resolvedState.alarms.contains { $0.code == .mediaSuppressed } }

        // An honest duck: 20 dB quieter, explained by the session, no alarm within 2 s.
        let duck = try controller.session.duck(owner: "effects")
        #expect(await !waitFor(timeout: .seconds(2), suppressed))
        try controller.session.releaseDuck(duck)
        try await Task.sleep(for: .milliseconds(800))

        // The engine's master volume lowered without the session knowing: the iOS bug, caught.
        controller.engine.setMasterVolume(0.3)
        #expect(await waitFor(timeout: .seconds(3), suppressed))
        controller.engine.setMasterVolume(1.0)
        #expect(await waitFor(timeout: .seconds(3)) { !suppressed() })
    }
}

/// Feeds a live test signal into the pushed microphone with running-time timestamps, as a device would.
final class MicFeed: Sendable {
    private let pipeline: Pipeline
    private let token: SignalHandler

    init(_ description: String, into mic: AppSource, engine: AudioEngine) throws {
        pipeline = try Pipeline.parse("\(description) ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! appsink name=mic-out sync=false")
        let sink = try pipeline.element(named: "mic-out", as: AppSink.self)
        token = try sink.onNewSample { sample in
            guard let samples = sample.buffer?.int16Samples(), let now = engine.runningTime else { return }
            _ = try? mic.push(samples, pts: now)
        }
        try pipeline.setState(.playing)
    }

    func stop() { _ = try? pipeline.setState(.null); token.disconnect() }
    deinit { stop() }
}
