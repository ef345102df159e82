import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Session controller on a headless engine")
struct SessionControllerTests {
    init() throws { try EngineSupport.start() }

    private func controller(microphone: SessionController.MicrophonePolicy = .fixed(.pushed),
                            settings: SessionSettings = SessionSettings()) throws -> SessionController {
        let controller = try SessionController(output: .discard, settings: settings, microphone: microphone, logger: EngineSupport.logger)
        try controller.start()
        return controller
    }

    @Test("mic-connect switches to the voice profile and the call channel without the courseware getting quieter")
    func micConnectKeepsMediaLevel() async throws {
        let controller = try controller()
        defer { controller.stop() }
        let lease = try controller.session.lease(.playback, owner: "courseware")
        let courseware = try controller.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        let capture = try OutputCapture(controller.engine)
        #expect(await capture.wait(until: .seconds(1.6)))
        let switchAt = try #require(capture.all.last?.pts)
        try controller.connectMicrophone()
        #expect(controller.session.resolvedState.processingProfile == .voice)
        #expect(controller.session.resolvedState.volume.channel == .call)
        #expect(controller.engine.uplink?.voiceProcessing == .voice)
        #expect(await capture.wait(until: switchAt + .seconds(1.3)))
        let before = capture.rms(in: switchAt - .seconds(1)..<switchAt)
        let after = capture.rms(in: switchAt + .milliseconds(200)..<switchAt + .milliseconds(1200))
        print("FIGURE media level across mic-connect: before \(before) dBFS, after \(after) dBFS, delta \(after - before) dB")
        #expect(abs(after - before) <= 0.1)

        try controller.disconnectMicrophone()
        #expect(controller.engine.uplink == nil)
        #expect(controller.session.resolvedState.processingProfile == .media)
        try controller.session.release(lease)
    }

    @Test("an effect ducks the courseware by 20 dB along a ramp within 150 ms, and it comes back exactly")
    func ducking() async throws {
        var settings = SessionSettings()
        settings.duckRamp = .milliseconds(100)
        settings.unduckRamp = .milliseconds(100)
        let controller = try controller(settings: settings)
        defer { controller.stop() }
        let courseware = try controller.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        let capture = try OutputCapture(controller.engine)
        #expect(await capture.wait(until: .seconds(1.2)))
        let duckRequested = try #require(capture.all.last?.pts)
        let token = try controller.session.duck(owner: "effects")
        #expect(await capture.wait(until: duckRequested + .seconds(1)))
        let release = try #require(capture.all.last?.pts)
        try controller.session.releaseDuck(token)
        #expect(await capture.wait(until: release + .seconds(1)))

        let base = capture.rms(in: duckRequested - .milliseconds(500)..<duckRequested)
        // Where the mix reached −20 dB: the ramp starts at the next buffer after the request.
        let windows = stride(from: 0, to: 400, by: 10).map { offset -> (Int, Double) in
            let start = duckRequested + .milliseconds(offset)
            return (offset, capture.rms(in: start..<start + .milliseconds(10)))
        }
        let reached = windows.first { $0.1 - base <= -19.5 }?.0
        let ducked = capture.rms(in: duckRequested + .milliseconds(400)..<release)
        let restored = capture.rms(in: release + .milliseconds(500)..<release + .milliseconds(1000))
        print("FIGURE ducking: base \(base) dBFS, ducked \(ducked - base) dB, reached -19.5 dB after \(reached ?? -1) ms of output time, restored \(restored - base) dB")
        #expect(abs((ducked - base) - -20) < 0.2)
        let reachedAfter = try #require(reached)
        // Output time includes the engine latency between the request and the next buffer out.
        #expect(reachedAfter <= 150 + Int(controller.engine.outputLatency.milliseconds))
        // A ramp, not a step: between full level and −20 dB there are intermediate 10 ms windows.
        let intermediate = windows.filter { $0.1 - base < -1 && $0.1 - base > -19 }
        #expect(intermediate.count >= 3)
        #expect(abs(restored - base) < 0.1)
    }

    @Test("an RTC feed mixes with the lesson; stopping it raises 1025 within a second and resuming clears it")
    func rtcInterruptionAlarm() async throws {
        let controller = try controller()
        defer { controller.stop() }
        let lease = try controller.session.lease(.rtcPlayback, owner: "rtc")
        let courseware = try controller.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let rtcFormat = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try controller.engine.addRTCInput(id: "rtc-teacher", format: rtcFormat)
        let lessonPump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.05 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { lessonPump.stop() }
        let capture = try OutputCapture(controller.engine)
        var rtcPump: SignalPump? = try SignalPump("audiotestsrc is-live=true wave=sine freq=1000 volume=0.05 samplesperbuffer=480", into: teacher, format: rtcFormat)
        #expect(await capture.wait(until: .seconds(1.5)))
        let lessonOnly = 20 * log10(0.05 / sqrt(2))
        let mixed = capture.rms(in: ClockTime.seconds(1)..<ClockTime.seconds(1.5))
        // Two uncorrelated sines of equal level: the mix is 3 dB louder than either.
        #expect(abs(mixed - (lessonOnly + 3.01)) < 0.3)
        #expect(!controller.session.resolvedState.alarms.contains { $0.code == .rtcAudioInterrupted })

        let stoppedAt = ContinuousClock.now
        rtcPump?.stop()
        rtcPump = nil
        let raised = await waitFor(timeout: .seconds(3)) { controller.session.resolvedState.alarms.contains { $0.code == .rtcAudioInterrupted && $0.owner == "rtc-teacher" } }
        let raisedAfter = ContinuousClock.now - stoppedAt
        print("FIGURE 1025 raised \(raisedAfter) after the feed stopped")
        #expect(raised)
        #expect(raisedAfter < .seconds(1))
        // The lesson kept playing at its own level.
        let tail = try #require(capture.all.last?.pts)
        #expect(await capture.wait(until: tail + .milliseconds(500)))
        #expect(abs(capture.rms(in: tail..<tail + .milliseconds(500)) - lessonOnly) < 0.3)

        rtcPump = try SignalPump("audiotestsrc is-live=true wave=sine freq=1000 volume=0.05 samplesperbuffer=480", into: teacher, format: rtcFormat)
        let cleared = await waitFor(timeout: .seconds(3)) { !controller.session.resolvedState.alarms.contains { $0.code == .rtcAudioInterrupted } }
        #expect(cleared)
        rtcPump?.stop()
        try controller.session.release(lease)
    }

}
