import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// What the sound server does to a running class by itself: corking, muting, dying and coming back.
extension PulseRouteTests {
    @Test("the sound server corking our stream is an interruption: the lesson pauses, the uplink mutes, and both resume after",
          .disabled(if: EngineSupport.onPipeWire, "pipewire-pulse has no module-role-cork; WirePlumber's own role policy is not set up here"))
    func corkIsAnInterruption() async throws {
        // A phone stream corks music streams on the same sink, as kiosk policy modules do.
        let cork = try Self.pactl("load-module", "module-role-cork", "trigger_roles=phone", "cork_roles=music")
        defer { _ = try? Self.pactl("unload-module", cork) }
        let controller = try SessionController(output: .soundServer(device: nil), microphone: .fixed(.pushed), logger: EngineSupport.logger)
        let events = Locked<[SessionEvent]>([])
        let observation = controller.session.observe { event in events.withLock { $0.append(event) } }
        try controller.start()
        defer { controller.stop(); observation.cancel() }
        #expect(controller.engine.configuration.mediaRole == "music")
        let lessonURI = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("samples/lesson.webm").absoluteString
        let lesson = try controller.loadLesson(uri: lessonURI, video: .discard)
        try lesson.play()
        try controller.connectMicrophone()
        try await waitFor("the stream on the speaker") { controller.engine.currentOutputDevice == "speaker" }
        #expect(controller.engine.uplink?.isMuted == false)

        let phone = try Pipeline.parse("audiotestsrc is-live=true wave=silence ! pulsesink device=speaker stream-properties=props,media.role=phone")
        try phone.setState(.playing)
        try await waitFor("the interruption") { events.withLock { $0 }.contains { if case .interruptionBegan(.soundServerCorked) = $0 { return true }; return false } }
        try await waitFor("the lesson to pause") { !lesson.isPlaying }
        #expect(controller.session.resolvedState.isInterrupted)
        try await waitFor("the uplink to mute") { controller.engine.uplink?.isMuted == true }
        #expect(controller.engine.isOutputMutedByServer == true)   // the server muted us meanwhile

        try phone.setState(.null)
        try await waitFor("the end of the interruption") { events.withLock { $0 }.contains { if case .interruptionEnded(.soundServerCorked, true) = $0 { return true }; return false } }
        try await waitFor("the lesson to resume") { lesson.isPlaying }
        try await waitFor("the uplink to unmute") { controller.engine.uplink?.isMuted == false }
        #expect(controller.engine.pipeline.state == .playing)
    }

    /// 1032 watches what the server really plays (the device's monitor): a muted sink plays silence
    /// there while the engine's own meter says it plays, and nothing else in the graph can see that.
    @Test("the output device muted on the server while the courseware plays raises 1032 naming the device; unmuted, it clears")
    func mutedDeviceRaises1032() async throws {
        let controller = try SessionController(output: .soundServer(device: nil), microphone: .fixed(.pushed), logger: EngineSupport.logger)
        try controller.start()
        defer { controller.stop() }
        let courseware = try controller.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.3 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        try await waitFor("the stream on the speaker") { controller.engine.currentOutputDevice == "speaker" }
        let alarm = { controller.session.resolvedState.alarms.first { $0.code == .playoutLevelTooLow } }
        // Heard as it is played: no alarm.
        #expect(await !ClassroomEngineTests.waitFor(timeout: .seconds(3)) { alarm() != nil })

        try Self.pactl("set-sink-mute", "speaker", "1")
        defer { _ = try? Self.pactl("set-sink-mute", "speaker", "0") }
        try await waitFor("1032 after the mute", timeout: .seconds(6)) { alarm() != nil }
        print("FIGURE 1032: \(alarm()?.message ?? "none") \(alarm()?.context ?? [:])")
        #expect(alarm()?.context["device"] == "speaker")
        try Self.pactl("set-sink-mute", "speaker", "0")
        try await waitFor("1032 to clear after the unmute", timeout: .seconds(5)) { alarm() == nil }
    }

    @Test("the sound server killed and restarted: media services lost, then reset within 3 s, and the same pipeline plays on the new server with the microphone back",
          .disabled(if: EngineSupport.onPipeWire, "KNOWN DEFECT on PipeWire: with pipewire-pulse stopped, pulsesink 1.22's render waits on its main loop for room that never comes (the mixer's thread in pa_threaded_mainloop_wait under the ring buffer's commit) and the recovery's teardown waits for that thread: 4 of 4 runs hung so once the engine moved its stream itself (WORKAROUNDS §1), where they used to abort on the loop's mutex (owner died)"))
    func soundServerRestart() async throws {
        let start = try #require(ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE_START"], "scripts/with-pulseaudio.sh sets it")
        let rig = try RouteRig(microphone: .fixed(.pushed))
        defer { rig.stop() }
        let (controller, events) = (rig.controller, rig.events)
        let lesson = try controller.session.lease(.playback, owner: "courseware")
        try controller.connectMicrophone()
        try await waitFor("the stream on the speaker") { controller.engine.currentOutputDevice == "speaker" }
        #expect(controller.engine.uplink != nil)
        func saw(_ wanted: SessionEvent) -> Bool { events.withLock { $0 }.contains(wanted) }

        // `--kill` only signals the daemon: wait until it no longer answers.
        if let kill = ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE_KILL"] {
            try Self.run("/bin/bash", "-c", kill)
        } else {
            try Self.run("/usr/bin/pulseaudio", "--kill")
        }
        try await waitFor("the server to be gone") { (try? Self.pactl("info")) == nil }
        try await waitFor("media services lost") { saw(.mediaServicesWereLost) }
        #expect(controller.session.resolvedState.isInterrupted)
        try await waitFor("the microphone to close") { controller.engine.uplink == nil }
        try await Task.sleep(for: .seconds(1))   // a few recovery attempts against no server
        #expect(!saw(.mediaServicesWereReset))

        let restarted = ContinuousClock.now
        try Self.run("/bin/bash", start)
        try await waitFor("media services reset") { saw(.mediaServicesWereReset) }
        let recovery = ContinuousClock.now - restarted
        print("FIGURE sound server restart: media services reset \(recovery) after the server answered again")
        #expect(recovery <= .seconds(3))
        #expect(!controller.session.resolvedState.isInterrupted)
        try await waitFor("the microphone to reopen") { controller.engine.uplink != nil }
        try await waitFor("the stream on the new server's speaker") { controller.engine.currentOutputDevice == "speaker" }
        let onSpeaker = try Self.monitorLevel(of: "speaker")
        print("FIGURE after the restart the speaker monitor hears \(onSpeaker) dBFS")
        #expect(onSpeaker > -35)
        #expect(controller.engine.pipeline.state == .playing)
        try controller.session.release(lesson)
    }
}
