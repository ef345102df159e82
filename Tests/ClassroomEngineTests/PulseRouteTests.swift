import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// Routes on a real PulseAudio server, and again on PipeWire's pulse server: null sinks plugged and
/// unplugged with pactl. `make test` starts each server (scripts/with-pulseaudio.sh,
/// scripts/with-pipewire.sh) and runs these on their own, serialized: device
/// providers are process-wide and two monitors side by side were measured to miss hotplugs.
@Suite("Routes on a real PulseAudio server", .serialized, .enabled(if: EngineSupport.hasPulse))
struct PulseRouteTests {
    init() throws { try EngineSupport.start() }

    @discardableResult
    static func pactl(_ arguments: String...) throws -> String { try PulseAudioControl.pactl(arguments) }

    /// Plugs a USB headset (a null sink with a headset's properties); returns the module id.
    static func plugHeadset(_ name: String) throws -> String {
        try PulseAudioControl.loadNullSink(name, properties: "device.description='USB Headset' device.form_factor=headset device.bus=usb")
    }

    /// The median 200 ms level heard on a sink's monitor (what the device plays), leaving out
    /// silent windows: from 5 heard windows, or over 6 s of silence. A stream that just moved to
    /// an idle null sink is held there for up to 2.5 s (measured), then arrives in bursts.
    static func monitorLevel(of sink: String) throws -> Double {
        let pipeline = try Pipeline.parse("pulsesrc device=\(sink).monitor ! audio/x-raw,rate=48000,channels=2 ! level name=ear interval=200000000 ! fakesink")
        let levels = Locked<[Double]>([])
        let subscription = pipeline.bus.subscribe { message in
            if case .element(let s) = message.view, s.name == "level", let rms = s.doubles("rms")?.first { levels.withLock { $0.append(rms) } }
        }
        defer { subscription.cancel(); _ = try? pipeline.setState(.null) }
        _ = try pipeline.bus.waitForMessage(timeout: .seconds(8), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { _ in
            levels.withLock { levels in levels.filter { $0 > -60 }.count >= 5 || levels.count >= 30 }
        }
        let heard = levels.withLock { $0 }.filter { $0 > -60 }.sorted()
        return heard.isEmpty ? -.infinity : heard[heard.count / 2]
    }

    /// Waits for `condition`; on a timeout the failure names `what` and, when given, what `state` says then.
    func waitFor(_ what: String, timeout: Duration = .seconds(5), state: () -> String = { "" }, _ condition: () -> Bool) async throws {
        if await !ClassroomEngineTests.waitFor(timeout: timeout, condition) {
            let now = state()
            throw EngineTestFailure("timed out waiting for \(what)\(now.isEmpty ? "" : " (\(now))")")
        }
    }

    @Test("a headset plugged in takes the output, unplugging it returns to the speaker and pauses the lesson, an override to speaker holds — without restarting the pipeline")
    func headsetRoutes() async throws {
        let headset = "headset_\(UInt32.random(in: 0...UInt32.max))"
        let rig = try RouteRig(microphone: .fixed(.pushed))
        defer { rig.stop() }
        let (controller, events, pipelineStates) = (rig.controller, rig.events, rig.pipelineStates)
        let lesson = try controller.session.lease(.playback, owner: "courseware")
        try await waitFor("the speaker route") { controller.engine.currentOutputDevice == "speaker" }
        #expect(controller.engine.pipeline.currentState(waitingUpTo: .seconds(5)).current == .playing)

        let module = try Self.plugHeadset(headset)
        try await waitFor("the headset route", state: { Self.whereThingsAre(controller) }) { controller.session.currentRoute.output?.deviceID == headset }
        try await waitFor("the stream on the headset", state: { Self.whereThingsAre(controller) }) { controller.engine.currentOutputDevice == headset }
        // The −23 dBFS tone is heard on the headset and no longer on the speaker. (Null sinks
        // take a moved stream in bursts, so levels are compared with silence, not to the 0.1 dB.)
        let onHeadset = try Self.monitorLevel(of: headset)
        let speakerMeanwhile = try Self.monitorLevel(of: "speaker")
        print("FIGURE routed to the headset: headset monitor \(onHeadset) dBFS, speaker monitor \(speakerMeanwhile) dBFS")
        #expect(onHeadset > -35)
        #expect(speakerMeanwhile < -60)
        #expect(controller.session.currentRoute.output?.port == .headphones)

        try Self.pactl("unload-module", module)
        try await waitFor("the speaker route again") { controller.session.currentRoute.output?.deviceID == "speaker" }
        try await waitFor("the stream back on the speaker") { controller.engine.currentOutputDevice == "speaker" }
        #expect(events.withLock { $0 }.contains { if case .lessonPauseRequested(.headphonesUnplugged) = $0 { return true }; return false })
        #expect(events.withLock { $0 }.contains { if case .routeChanged(.oldDeviceUnavailable, _, _) = $0 { return true }; return false })
        let onSpeaker = try Self.monitorLevel(of: "speaker")
        #expect(onSpeaker > -35)

        let again = try Self.plugHeadset(headset)
        defer { _ = try? Self.pactl("unload-module", again) }
        // Two waits, as for the first plug: CI once timed out here on PipeWire (passed alone) with no word of which half.
        try await waitFor("the headset route again", state: { Self.whereThingsAre(controller) }) {
            controller.session.currentRoute.output?.deviceID == headset
        }
        try await waitFor("the stream on the headset again", state: { Self.whereThingsAre(controller) }) {
            controller.engine.currentOutputDevice == headset
        }
        try controller.session.overrideOutputPort(.speaker)
        try await waitFor("the override to the speaker", state: { Self.whereThingsAre(controller) }) { controller.engine.currentOutputDevice == "speaker" }
        #expect(controller.session.currentRoute.output?.port == .builtInSpeaker)

        // Never restarted: after reaching PLAYING the engine pipeline never went down again.
        #expect(!pipelineStates.withLock { $0 }.contains { $0 < .playing })
        #expect(controller.engine.pipeline.state == .playing)
        try controller.session.release(lesson)
    }

    @Test("20 mic connect/disconnect cycles and 5 sink retargets on PulseAudio leave no gap, DISCONT or click")
    func gaplessAcrossCyclesAndRetargets() async throws {
        let headset = "headset_\(UInt32.random(in: 0...UInt32.max))"
        let module = try Self.plugHeadset(headset)
        defer { _ = try? Self.pactl("unload-module", module) }
        // The microphone is a device of its own (a null sink's monitor standing in for a USB mic):
        // recording the output sink's own monitor while moving the output to and from that sink
        // made the null sink consume slower than real time (measured: ~200 dropped pushes).
        let room = "room_\(UInt32.random(in: 0...UInt32.max))"
        let roomModule = try Self.pactl("load-module", "module-null-sink", "sink_name=\(room)")
        defer { _ = try? Self.pactl("unload-module", roomModule) }
        let engine = try AudioEngine(output: .soundServer(device: "speaker"), logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat)
        defer { pump.stop() }
        #expect(engine.pipeline.currentState(waitingUpTo: .seconds(5)).current == .playing)
        #expect(await OutputWarmUp.settle(engine, input: courseware))
        let droppedBefore = courseware.droppedPushes
        let capture = try OutputCapture(engine)
        var retargets = 0
        for cycle in 0..<20 {
            let uplink = try engine.connectMicrophone(.device("\(room).monitor"), processing: .voice) { _ in }
            try await Task.sleep(for: .milliseconds(60))
            if cycle.isMultiple(of: 4) {
                try engine.retargetOutput(device: retargets.isMultiple(of: 2) ? headset : "speaker")
                retargets += 1
            }
            _ = uplink
            engine.disconnectMicrophone()
            try await Task.sleep(for: .milliseconds(40))
        }
        let end = try #require(capture.all.last?.pts)
        #expect(await capture.wait(until: end + .milliseconds(200)))
        capture.stop()
        let continuity = capture.continuity()
        let clicks = capture.clicks(limit: ContinuityMeter.clickLimit(sines: [(0.1, 500)]))
        print("FIGURE continuity on PulseAudio, 20 mic cycles (pulsesrc) + \(retargets) retargets: \(continuity.buffers) buffers, \(continuity.gaps) gaps, \(continuity.discontinuities) DISCONT, \(clicks) clicks, \(courseware.droppedPushes - droppedBefore) dropped pushes (\(droppedBefore) while the output started); pushes late at p99 \(courseware.lateness.percentile(0.99)?.milliseconds ?? -1) ms, latest \(courseware.lateness.largest), \(courseware.timelineResyncs) re-anchored")
        #expect(retargets == 5)
        #expect(courseware.droppedPushes == droppedBefore)

        #expect(continuity.gaps == 0)
        #expect(continuity.discontinuities == 0)
        #expect(clicks == 0)
        #expect(engine.pipeline.state == .playing)
    }

    /// Every move the engine makes is one the server carries out: pipewire-pulse 0.3.65 acknowledged
    /// moves it never made (about 1 in 4, WORKAROUNDS §30), and routes stayed on the old device
    /// with the engine believing otherwise.
    @Test("30 moves of the output between two devices: each one is carried out by the server")
    func everyMoveLands() async throws {
        let headset = "headset_\(UInt32.random(in: 0...UInt32.max))"
        let module = try Self.plugHeadset(headset)
        defer { PulseAudioControl.unload(module) }
        let engine = try AudioEngine(output: .soundServer(device: "speaker"), logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        try await waitFor("the stream on the speaker") { engine.currentOutputDevice == "speaker" }
        var missed: [Int] = []
        var slowest = Duration.zero
        for move in 0..<30 {
            let device = move.isMultiple(of: 2) ? headset : "speaker"
            let asked = ContinuousClock.now
            try engine.retargetOutput(device: device)
            // pulsesink hears where its stream is from the server's own move event.
            if await ClassroomEngineTests.waitFor(timeout: .seconds(1), { engine.currentOutputDevice == device }) {
                slowest = max(slowest, ContinuousClock.now - asked)
            } else {
                missed.append(move)
                try await waitFor("the stream on \(device) after a missed move", timeout: .seconds(10), state: { PulseAudioControl.placement() }) {
                    (try? engine.retargetOutput(device: device)) != nil && engine.currentOutputDevice == device
                }
            }
        }
        let again = engine.movesAskedAgain.load(ordering: .relaxed)
        print("FIGURE 30 moves between speaker and headset: \(missed.count) not carried out \(missed), \(again) asked again by the engine, the slowest there \(slowest) after it was asked")
        #expect(missed.isEmpty)
    }

    @Test("a Bluetooth headset moving A2DP → HFP on mic-connect (the server's policy swaps its sinks) is a retarget: output and microphone follow, the lesson is not paused, the pipeline never restarts")
    func bluetoothProfileSwitch() async throws {
        // What module-bluetooth-policy (auto_switch) or WirePlumber does when our phone-role
        // microphone opens: the card's A2DP sink goes, its hands-free sink and source come.
        let address = "AA_BB_CC_\(String(UInt32.random(in: 0...0xFFFF), radix: 16, uppercase: true))"
        func plug(_ profile: String) throws -> [String] {
            let common = "device.bus=bluetooth device.api=bluez device.form_factor=headset bluetooth.protocol=\(profile)"
            let sink = "bluez_sink.\(address).\(profile)"
            var modules = [try Self.pactl("load-module", "module-null-sink", "sink_name=\(sink)",
                                          "sink_properties=\"device.description='BT Headset' \(common)\"")]
            if profile == "handsfree_head_unit" {
                modules.append(try Self.pactl("load-module", "module-remap-source", "master=\(sink).monitor",
                                              "source_name=bluez_source.\(address).\(profile)",
                                              "source_properties=\"device.description='BT Headset Mic' device.class=sound \(common)\""))
            }
            return modules
        }
        func unplug(_ modules: [String]) { for module in modules.reversed() { _ = try? Self.pactl("unload-module", module) } }
        let a2dpSink = "bluez_sink.\(address).a2dp_sink"
        let hfpSink = "bluez_sink.\(address).handsfree_head_unit"
        let hfpSource = "bluez_source.\(address).handsfree_head_unit"

        var a2dp = try plug("a2dp_sink")
        defer { unplug(a2dp) }
        let rig = try RouteRig(microphone: .route)
        defer { rig.stop() }
        let (controller, events, pipelineStates) = (rig.controller, rig.events, rig.pipelineStates)
        let lesson = try controller.session.lease(.playback, owner: "courseware")
        try await waitFor("the stream on the A2DP headset") { controller.engine.currentOutputDevice == a2dpSink }
        #expect(controller.session.currentRoute.output?.port == .bluetoothA2DP)

        try controller.connectMicrophone()
        unplug(a2dp)
        var hfp = try plug("handsfree_head_unit")
        defer { unplug(hfp) }
        try await waitFor("the hands-free route") {
            controller.session.currentRoute.output?.deviceID == hfpSink && controller.session.currentRoute.input?.deviceID == hfpSource
        }
        try await waitFor("the stream on the hands-free sink") { controller.engine.currentOutputDevice == hfpSink }
        try await waitFor("the microphone on the hands-free source") { controller.engine.uplink?.source == .device(hfpSource) }
        #expect(controller.session.currentRoute.output?.port == .bluetoothHFP)
        let onHeadset = try Self.monitorLevel(of: hfpSink)
        print("FIGURE Bluetooth A2DP → HFP: hands-free sink monitor \(onHeadset) dBFS")
        #expect(onHeadset > -35)

        // The call ends; the policy gives the card its A2DP profile back.
        try controller.disconnectMicrophone()
        unplug(hfp); hfp = []
        a2dp = try plug("a2dp_sink")
        try await waitFor("the A2DP route again") { controller.engine.currentOutputDevice == a2dpSink }
        #expect(controller.engine.uplink == nil)
        #expect(!events.withLock { $0 }.contains { if case .lessonPauseRequested = $0 { return true }; return false })
        #expect(!pipelineStates.withLock { $0 }.contains { $0 < .playing })
        try controller.session.release(lesson)
    }

    @Test("the output device unplugged while playing: the stream is on the speaker within 200 ms, the pipeline never restarts")
    func outputRemovedFallsBack() async throws {
        let headset = "headset_\(UInt32.random(in: 0...UInt32.max))"
        let module = try Self.plugHeadset(headset)
        // Unloaded on every way out (again after the unplug is a no-op): a headset left behind takes the next tests' output.
        defer { PulseAudioControl.unload(module) }
        let rig = try RouteRig(microphone: .route)
        defer { rig.stop() }
        let (controller, pipelineStates) = (rig.controller, rig.pipelineStates)
        let lesson = try controller.session.lease(.playback, owner: "courseware")
        try await waitFor("the stream on the headset", state: { Self.whereThingsAre(controller) }) { controller.engine.currentOutputDevice == headset }

        let unplugged = ContinuousClock.now
        try Self.pactl("unload-module", module)
        try await waitFor("the stream on the speaker") { controller.engine.currentOutputDevice == "speaker" }
        let fallback = ContinuousClock.now - unplugged
        try await waitFor("the session on the speaker") { controller.session.currentRoute.output?.deviceID == "speaker" }
        print("FIGURE output unplugged: stream on the speaker \(fallback) after the unload")
        #expect(fallback <= .milliseconds(200))
        #expect(try Self.monitorLevel(of: "speaker") > -35)
        #expect(!pipelineStates.withLock { $0 }.contains { $0 < .playing })
        try controller.session.release(lesson)
    }

    @Test("every output device removed: an interruption (device lost), pushes refused with a reason; a device coming back brings the output back — also when the server's Dummy Output (auto_null) is left, which is never a route",
          arguments: [false, true])
    func everyDeviceRemoved(dummyLeft: Bool) async throws {
        let speakerModule = try #require(try Self.moduleID(ofSink: "speaker"))
        // What PulseAudio's module-always-sink and pipewire-pulse leave when no real sink is there.
        let dummy = dummyLeft ? try PulseAudioControl.loadNullSink("auto_null", properties: "device.description='Dummy Output'") : nil
        defer { if let dummy { _ = try? Self.pactl("unload-module", dummy) } }
        let controller = try SessionController(output: .soundServer(device: nil), logger: EngineSupport.logger)
        let events = Locked<[SessionEvent]>([])
        let observation = controller.session.observe { event in events.withLock { $0.append(event) } }
        try controller.start()
        defer { controller.stop(); observation.cancel() }
        let teacher = try controller.engine.addRTCInput(id: "rtc-teacher", format: AudioFormat(format: .s16, rate: 48_000, channels: 1))
        let lease = try controller.session.lease(.rtcPlayback, owner: "rtc")
        try await waitFor("the stream on the speaker") { controller.engine.currentOutputDevice == "speaker" }

        try Self.pactl("unload-module", speakerModule)
        var restored = false
        defer { if !restored { _ = try? Self.pactl("load-module", "module-null-sink", "sink_name=speaker", "sink_properties=device.description=Speaker") } }
        try await waitFor("the interruption") { events.withLock { $0 }.contains(.interruptionBegan(.deviceLost)) }
        #expect(controller.session.resolvedState.isInterrupted)
        #expect(controller.session.currentRoute.output == nil)
        // Pushes in the meantime are refused with a reason, never dropped silently.
        #expect(throws: EngineError.self) { try teacher.push([Int16](repeating: 0, count: 480)) }

        try Self.pactl("load-module", "module-null-sink", "sink_name=speaker", "sink_properties=device.description=Speaker")
        restored = true
        try await waitFor("the end of the interruption") { events.withLock { $0 }.contains(.interruptionEnded(.deviceLost, shouldResume: true)) }
        try await waitFor("the stream on the speaker again") { controller.engine.currentOutputDevice == "speaker" }
        #expect(!controller.session.resolvedState.isInterrupted)
        #expect(try teacher.push([Int16](repeating: 0, count: 480)) == .queued)
        try controller.session.release(lease)
    }
}
