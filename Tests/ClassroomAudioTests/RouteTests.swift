import ClassroomAudio
import Testing

@Suite("Routes")
struct RouteTests {
    private func kiosk(_ settings: SessionSettings = SessionSettings()) throws -> AudioSession {
        let session = try makeSession(settings)
        Devices.builtIn.forEach(session.addDevice)
        return session
    }

    private func port(_ port: Port, _ device: AudioDevice) -> RoutePort {
        RoutePort(port: port, deviceID: device.id, name: device.name)
    }

    @Test("with nothing connected the built-in speaker plays")
    func builtInSpeaker() throws {
        let session = try kiosk()
        #expect(session.currentRoute == AudioRoute(output: port(.builtInSpeaker, Devices.speaker), input: nil))
    }

    @Test("a connected device wins with reason newDeviceAvailable, and its loss falls back with oldDeviceUnavailable")
    func plugAndUnplug() throws {
        let session = try kiosk()
        let events = EventRecorder(session)
        session.addDevice(Devices.jackHeadphones)
        session.removeDevice(id: Devices.jackHeadphones.id)
        let changes = events.routeChanges
        #expect(changes.map(\.reason) == [.newDeviceAvailable, .oldDeviceUnavailable])
        #expect(changes.first?.previous.output == port(.builtInSpeaker, Devices.speaker))
        #expect(changes.first?.current.output == port(.headphones, Devices.jackHeadphones))
        #expect(changes.last?.current.output == port(.builtInSpeaker, Devices.speaker))
    }

    @Test("the last connected allowed device wins")
    func lastInWins() throws {
        let session = try kiosk()
        session.addDevice(Devices.hdmi)
        session.addDevice(Devices.usbSpeaker)
        #expect(session.currentRoute.output?.deviceID == Devices.usbSpeaker.id)
        session.removeDevice(id: Devices.usbSpeaker.id)
        #expect(session.currentRoute.output?.deviceID == Devices.hdmi.id)
    }

    @Test("a device reported twice keeps its place and is not announced as new")
    func duplicateAdd() throws {
        let session = try kiosk()
        session.addDevice(Devices.jackHeadphones)
        session.addDevice(Devices.hdmi)
        let events = EventRecorder(session)
        session.addDevice(Devices.jackHeadphones)
        #expect(session.currentRoute.output?.deviceID == Devices.hdmi.id)
        #expect(events.routeChanges.isEmpty)
        #expect(session.state.devices.filter { $0.id == Devices.jackHeadphones.id }.count == 1)
    }

    @Test("a device that changes is a route configuration change")
    func deviceChanged() throws {
        var settings = SessionSettings()
        settings.baseConfiguration = try AudioConfiguration(category: .playAndRecord, options: .allowBluetooth)
        let session = try kiosk(settings)
        session.addDevice(Devices.bluetoothHeadsetA2DP)
        let events = EventRecorder(session)
        session.updateDevice(Devices.bluetoothHeadsetHFP, replacing: Devices.bluetoothHeadsetA2DP.id)
        #expect(session.state.devices.contains(Devices.bluetoothHeadsetHFP))
        #expect(!session.state.devices.contains(Devices.bluetoothHeadsetA2DP))
        #expect(events.routeChanges.map(\.reason) == [.routeConfigurationChange])
    }

    @Test("a configuration change that changes the route says categoryChange")
    func categoryChange() throws {
        let session = try kiosk()
        let events = EventRecorder(session)
        _ = try session.lease(.record, owner: "follow-reading")
        #expect(events.routeChanges.map(\.reason) == [.categoryChange])
        #expect(session.currentRoute.input == port(.builtInMic, Devices.builtInMic))
    }

    @Test("recording with no input says noSuitableRouteForCategory")
    func noSuitableRoute() throws {
        let session = try makeSession()
        session.addDevice(Devices.speaker)
        let events = EventRecorder(session)
        _ = try session.lease(.record, owner: "follow-reading")
        #expect(events.routeChanges.map(\.reason) == [.noSuitableRouteForCategory])
        #expect(session.resolvedState.lacksRequiredInput)
        session.addDevice(Devices.usbMic)
        #expect(events.routeChanges.last?.reason == .newDeviceAvailable)
        #expect(session.currentRoute.input?.port == .usbAudio)
        #expect(!session.resolvedState.lacksRequiredInput)
    }

    @Test("the speaker override says override, and lasts until the next route change")
    func overrideLastsUntilRouteChange() throws {
        let session = try kiosk()
        session.addDevice(Devices.jackHeadphones)
        let events = EventRecorder(session)
        try session.overrideOutputPort(.speaker)
        #expect(session.currentRoute.output?.port == .builtInSpeaker)
        session.addDevice(Devices.usbMic)
        #expect(session.state.portOverride == .none)
        #expect(session.currentRoute.output?.port == .headphones)
        #expect(events.routeChanges.map(\.reason) == [.override, .newDeviceAvailable])
    }

    @Test("a sink monitor appearing, or a device reported again, is no route change: the override holds")
    func overrideSurvivesNonRoutes() throws {
        let session = try kiosk()
        session.addDevice(Devices.jackHeadphones)
        try session.overrideOutputPort(.speaker)
        // PulseAudio announces a new sink's monitor right after the sink itself.
        session.addDevice(AudioDevice(id: "alsa_output.pci.analog-headphones.monitor", name: "Monitor of Headphones",
                                      direction: .input, properties: [AudioDevice.PropertyKey.deviceClass: "monitor"]))
        session.addDevice(Devices.jackHeadphones)
        #expect(session.state.portOverride == .speaker)
        #expect(session.currentRoute.output?.port == .builtInSpeaker)
    }

    @Test("removing the override returns to the normal choice")
    func overrideRemoved() throws {
        let session = try kiosk()
        session.addDevice(Devices.jackHeadphones)
        try session.overrideOutputPort(.speaker)
        try session.overrideOutputPort(.none)
        #expect(session.currentRoute.output?.port == .headphones)
    }

    @Test("waking from sleep ends the override, with reason wakeFromSleep")
    func wake() throws {
        let session = try kiosk()
        session.addDevice(Devices.jackHeadphones)
        try session.overrideOutputPort(.speaker)
        let events = EventRecorder(session)
        session.systemDidWake()
        #expect(events.routeChanges.map(\.reason) == [.wakeFromSleep])
        #expect(session.currentRoute.output?.port == .headphones)
    }

    @Test("the override also moves recording to the built-in microphone")
    func overrideInput() throws {
        let session = try kiosk()
        session.addDevice(Devices.usbHeadset)
        session.addDevice(Devices.usbHeadsetMic)
        _ = try session.lease(.voiceCall, owner: "rtc")
        #expect(session.currentRoute.input?.port == .headsetMic)
        try session.overrideOutputPort(.speaker)
        #expect(session.currentRoute == AudioRoute(output: port(.builtInSpeaker, Devices.speaker), input: port(.builtInMic, Devices.builtInMic)))
    }

    @Test("the override needs a playing category and a built-in speaker")
    func overrideRefused() throws {
        var settings = SessionSettings()
        settings.baseConfiguration = try AudioConfiguration(category: .record)
        let recording = try kiosk(settings)
        #expect {
            try recording.overrideOutputPort(.speaker)
        } throws: { error in
            guard case .incompatibleCategory(let reason) = error as? AudioSessionError else { return false }
            return reason.contains("record")
        }
        let noSpeaker = try makeSession()
        noSpeaker.addDevice(Devices.jackHeadphones)
        #expect {
            try noSpeaker.overrideOutputPort(.speaker)
        } throws: { error in
            if case .resourceNotAvailable = error as? AudioSessionError { return true }
            return false
        }
    }

    @Test("playAndRecord without defaultToSpeaker uses the receiver when one exists; with it, the speaker")
    func receiver() throws {
        for (options, expected) in [(CategoryOptions(), Port.builtInReceiver), (.defaultToSpeaker, .builtInSpeaker)] {
            var settings = SessionSettings()
            settings.baseConfiguration = try AudioConfiguration(category: .playAndRecord, options: options)
            let session = try kiosk(settings)
            session.addDevice(Devices.receiver)
            #expect(session.currentRoute.output?.port == expected)
        }
        let playback = try kiosk()
        playback.addDevice(Devices.receiver)
        #expect(playback.currentRoute.output?.port == .builtInSpeaker)
    }

    @Test("playAndRecord prefers a headset as the communication device over a later device")
    func headsetPreferred() throws {
        let session = try kiosk()
        session.addDevice(Devices.usbHeadset)
        session.addDevice(Devices.usbHeadsetMic)
        session.addDevice(Devices.hdmi)
        session.addDevice(Devices.usbMic)
        #expect(session.currentRoute.output?.port == .HDMI)
        _ = try session.lease(.voiceCall, owner: "rtc")
        #expect(session.currentRoute.output == port(.headphones, Devices.usbHeadset))
        #expect(session.currentRoute.input == port(.headsetMic, Devices.usbHeadsetMic))
    }

    @Test("Bluetooth hands-free needs allowBluetooth and a recording category")
    func handsFreeRules() throws {
        let handsFreeOnly = try #require(PortClassifier.standard.classify(Devices.bluetoothHeadsetMic))
        let stereo = try #require(PortClassifier.standard.classify(Devices.bluetoothSpeaker))
        let cases: [(AudioConfiguration, Bool, Port?, Port?)] = [
            (try AudioConfiguration(category: .playAndRecord, options: .allowBluetooth), true, .bluetoothHFP, nil),
            (try AudioConfiguration(category: .playAndRecord), true, nil, nil),
            (try AudioConfiguration(category: .playAndRecord, options: .allowBluetoothA2DP), true, nil, .bluetoothA2DP),
            (try AudioConfiguration(category: .playAndRecord, options: .allowBluetooth), false, .bluetoothHFP, .bluetoothA2DP),
            (try AudioConfiguration(category: .playback), false, nil, .bluetoothA2DP),
            (try AudioConfiguration(category: .record, options: .allowBluetooth), true, .bluetoothHFP, nil),
        ]
        for (configuration, recording, handsFreePort, stereoPort) in cases {
            #expect(
                SessionResolver.outputPort(for: handsFreeOnly, configuration: configuration, isRecording: recording)
                    == handsFreePort, "\(configuration)")
            #expect(
                SessionResolver.outputPort(for: stereo, configuration: configuration, isRecording: recording)
                    == stereoPort, "\(configuration)")
        }
    }

    @Test("a headset that can do both profiles uses hands-free while recording, even when stereo is also allowed")
    func dualProfileHeadset() throws {
        let dual = try #require(PortClassifier.standard.classify(Devices.bluetoothHeadsetA2DP))
        let both = try AudioConfiguration(category: .playAndRecord, options: [.allowBluetooth, .allowBluetoothA2DP])
        #expect(SessionResolver.outputPort(for: dual, configuration: both, isRecording: true) == .bluetoothHFP)
        #expect(SessionResolver.outputPort(for: dual, configuration: both, isRecording: false) == .bluetoothA2DP)
        let stereoOnly = try AudioConfiguration(category: .playAndRecord, options: .allowBluetoothA2DP)
        #expect(SessionResolver.outputPort(for: dual, configuration: stereoOnly, isRecording: true) == .bluetoothA2DP)
        let handsFreeOnly = try AudioConfiguration(category: .playAndRecord, options: .allowBluetooth)
        #expect(SessionResolver.outputPort(for: dual, configuration: handsFreeOnly, isRecording: true) == .bluetoothHFP)
        #expect(SessionResolver.outputPort(for: dual, configuration: try AudioConfiguration(category: .playback), isRecording: false) == .bluetoothA2DP)
    }

    @Test("the hands-free output records from the same headset's microphone")
    func handsFreeInputFollowsOutput() throws {
        let session = try kiosk()
        session.addDevice(Devices.bluetoothHeadsetHFP)
        session.addDevice(Devices.usbMic)
        session.addDevice(Devices.bluetoothHeadsetMic)
        session.addDevice(Devices.jackHeadsetMic)
        _ = try session.lease(.voiceCall, owner: "rtc")
        #expect(session.currentRoute.output?.port == .bluetoothHFP)
        #expect(session.currentRoute.input == port(.bluetoothHFP, Devices.bluetoothHeadsetMic))
    }

    @Test("hardware characteristics come from the backend for the current route")
    func hardware() throws {
        let session = try kiosk()
        try session.setPreferredSampleRate(44_100)
        try session.setPreferredIOBufferDuration(.milliseconds(20))
        #expect(
            session.hardwareCharacteristics
                == HardwareCharacteristics(
                    sampleRate: 44_100, ioBufferDuration: .milliseconds(20), outputChannelCount: 2, inputChannelCount: 0,
                    isInputAvailable: false))
        session.addDevice(Devices.bluetoothHeadsetHFP)
        session.addDevice(Devices.bluetoothHeadsetMic)
        _ = try session.lease(.voiceCall, owner: "rtc")
        let handsFree = session.hardwareCharacteristics
        #expect(handsFree.sampleRate == 16_000 && handsFree.outputChannelCount == 1 && handsFree.isInputAvailable)
        #expect(throws: AudioSessionError.self) { try session.setPreferredSampleRate(0) }
        #expect(throws: AudioSessionError.self) { try session.setPreferredIOBufferDuration(.seconds(2)) }
        try session.setPreferredSampleRate(nil)
        #expect(session.hardwareCharacteristics.sampleRate == 16_000)
    }

    @Test("removing an unknown device changes nothing")
    func unknownRemoval() throws {
        let session = try kiosk()
        let events = EventRecorder(session)
        #expect(!session.removeDevice(id: "nothing"))
        #expect(events.events.isEmpty)
    }
}
