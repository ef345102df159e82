import ClassroomAudio
import Testing

/// The classroom situations of the reference articles, end to end through one session.
@Suite("Classroom scenarios")
struct ScenarioTests {
    private func classroom(_ settings: SessionSettings = SessionSettings()) throws -> AudioSession {
        let session = try makeSession(settings)
        Devices.builtIn.forEach(session.addDevice)
        try session.setActive(true)
        return session
    }

    @Test("a webview module sets a non-mixable category during RTC: corrected, and the alarm names the webview")
    func webviewDuringRTC() throws {
        let session = try classroom()
        let rtc = try session.lease(.rtcPlayback, owner: "rtc")
        let inClass = session.configuration
        let events = EventRecorder(session)
        let line = #line + 1
        try session.setCategory(.playback, mode: .moviePlayback, owner: "webview-courseware")
        #expect(session.configuration == inClass)
        #expect(session.configuration.mixesWithOthers && session.configuration.compliesWithRTCPolicy)
        let alarm = try #require(events.alarms.first)
        #expect(alarm.code == .sessionCorrected)
        #expect(alarm.owner == "webview-courseware")
        #expect(alarm.callSite == CallSite(fileID: #fileID, line: line))
        #expect(alarm.message.contains("webview-courseware") && alarm.message.contains("mixWithOthers"))
        #expect(session.state.base == (try AudioConfiguration(category: .playback, mode: .moviePlayback, options: .mixWithOthers)))
        try session.release(rtc)
        #expect(session.configuration.category == .playback && session.configuration.mixesWithOthers)
    }

    @Test("follow-reading records during courseware and releases: the earlier configuration returns exactly")
    func followReadingDuringCourseware() throws {
        let session = try classroom()
        let courseware = try session.lease(.playback, owner: "courseware")
        let before = session.resolvedState
        let events = EventRecorder(session)
        let reading = try session.lease(.record, owner: "follow-reading")
        #expect(session.configuration.category == .playAndRecord)
        #expect(session.resolvedState.route.output == before.route.output)
        #expect(session.currentRoute.input?.port == .builtInMic)
        try session.release(reading)
        #expect(session.resolvedState == before)
        #expect(events.configurationChanges.count == 2)
        #expect(events.configurationChanges.last?.new == before.configuration)
        try session.release(courseware)
    }

    @Test("follow-reading during a call needs nothing new, so nothing is reconfigured")
    func followReadingDuringCall() throws {
        let session = try classroom()
        _ = try session.lease(.playback, owner: "courseware")
        _ = try session.lease(.voiceCall, owner: "rtc")
        let before = session.resolvedState
        let events = EventRecorder(session)
        let reading = try session.lease(.record, owner: "follow-reading")
        try session.release(reading)
        #expect(session.resolvedState == before)
        #expect(events.events.isEmpty)
    }

    @Test("mic connect during courseware switches to the voice profile and the call channel, keeping the output")
    func micConnectDuringCourseware() throws {
        let session = try classroom()
        try session.setVolume(0.6, for: .media)
        try session.setVolume(0.9, for: .call)
        _ = try session.lease(.playback, owner: "courseware")
        _ = try session.lease(.rtcPlayback, owner: "rtc-audience")
        let listening = session.resolvedState
        #expect(listening.processingProfile == .media && listening.volume == ActiveVolume(channel: .media, value: 0.6))
        #expect(!listening.isRecording && listening.mediaRole == "production")
        let mic = try session.lease(.voiceCall, owner: "rtc-mic")
        let connected = session.resolvedState
        #expect(connected.configuration.category == .playAndRecord && connected.configuration.mode == .voiceChat)
        #expect(connected.processingProfile == .voice && connected.mediaRole == "phone")
        #expect(connected.volume == ActiveVolume(channel: .call, value: 0.9))
        #expect(connected.isRecording && connected.route.input?.port == .builtInMic)
        #expect(connected.route.output == listening.route.output)
        try session.release(mic)
        #expect(session.resolvedState == listening)
    }

    @Test("a headset plugged in wins; unplugged, the route falls back and the lesson is asked to pause")
    func headsetPlugAndUnplug() throws {
        let session = try classroom()
        _ = try session.lease(.playback, owner: "courseware")
        session.addDevice(Devices.hdmi)
        let events = EventRecorder(session)
        session.addDevice(Devices.usbHeadset)
        #expect(session.currentRoute.output?.port == .headphones)
        session.removeDevice(id: Devices.usbHeadset.id)
        #expect(session.currentRoute.output?.port == .HDMI)
        #expect(events.lessonPauses == [.headphonesUnplugged(.headphones)])
        #expect(events.routeChanges.map(\.reason) == [.newDeviceAvailable, .oldDeviceUnavailable])
        #expect(events.routeChanges.last?.previous.output?.deviceID == Devices.usbHeadset.id)
        // Unplugging something that was not playing pauses nothing.
        session.addDevice(Devices.usbHeadset)
        session.addDevice(Devices.lineOut)
        session.removeDevice(id: Devices.usbHeadset.id)
        #expect(events.lessonPauses.count == 1)
    }

    @Test("the lesson pause on unplugging is configurable")
    func unplugPauseConfigurable() throws {
        var settings = SessionSettings()
        settings.pausesLessonWhenHeadphonesUnplugged = false
        let session = try classroom(settings)
        session.addDevice(Devices.jackHeadphones)
        let events = EventRecorder(session)
        session.removeDevice(id: Devices.jackHeadphones.id)
        #expect(events.lessonPauses.isEmpty)
        #expect(session.currentRoute.output?.port == .builtInSpeaker)
    }

    @Test("an override to the speaker lasts until the next route change")
    func speakerOverride() throws {
        let session = try classroom()
        _ = try session.lease(.voiceCall, owner: "rtc")
        session.addDevice(Devices.usbHeadset)
        session.addDevice(Devices.usbHeadsetMic)
        try session.overrideOutputPort(.speaker)
        #expect(session.currentRoute.output?.port == .builtInSpeaker)
        let reading = try session.lease(.record, owner: "follow-reading")
        #expect(session.currentRoute.output?.port == .builtInSpeaker)
        try session.release(reading)
        #expect(session.currentRoute.output?.port == .builtInSpeaker)
        session.addDevice(Devices.hdmi)
        #expect(session.state.portOverride == .none)
        #expect(session.currentRoute.output?.port == .headphones)
    }

    @Test("a Bluetooth headset is A2DP while listening and HFP while the mic is connected")
    func bluetoothHeadset() throws {
        let session = try classroom()
        _ = try session.lease(.playback, owner: "courseware")
        _ = try session.lease(.rtcPlayback, owner: "rtc-audience")
        session.addDevice(Devices.bluetoothHeadsetA2DP)
        #expect(session.currentRoute.output == RoutePort(port: .bluetoothA2DP, deviceID: Devices.bluetoothHeadsetA2DP.id, name: "BT Headset"))
        let events = EventRecorder(session)
        let mic = try session.lease(.voiceCall, owner: "rtc-mic")
        // The engine sees the hands-free port on the same device and switches the card profile.
        #expect(session.currentRoute.output?.port == .bluetoothHFP)
        #expect(session.currentRoute.output?.deviceID == Devices.bluetoothHeadsetA2DP.id)
        #expect(events.routeChanges.last?.reason == .categoryChange)
        session.updateDevice(Devices.bluetoothHeadsetHFP, replacing: Devices.bluetoothHeadsetA2DP.id)
        session.addDevice(Devices.bluetoothHeadsetMic)
        #expect(session.currentRoute.output == RoutePort(port: .bluetoothHFP, deviceID: Devices.bluetoothHeadsetHFP.id, name: "BT Headset"))
        #expect(session.currentRoute.input?.deviceID == Devices.bluetoothHeadsetMic.id)
        #expect(session.hardwareCharacteristics.sampleRate == 16_000)
        try session.release(mic)
        #expect(session.currentRoute.output?.port == .bluetoothA2DP)
        #expect(events.lessonPauses.isEmpty)
    }
}
