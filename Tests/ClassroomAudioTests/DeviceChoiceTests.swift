import ClassroomAudio
import Testing

/// A device the user named (`--output back`, `--mic SOURCE`) is a sticky choice: the route takes
/// it while it is connected, and only its going away ends it (DESIGN §4 Routes).
@Suite("Devices the user names")
struct DeviceChoiceTests {
    /// A second speaker-class sink, not the default (the null sinks of a kiosk's test server).
    static let back = AudioDevice(id: "back", name: "Back", direction: .output,
                                  properties: ["device.class": "abstract", "device.description": "Back"])

    private func kiosk(_ settings: SessionSettings = SessionSettings()) throws -> AudioSession {
        let session = try makeSession(settings)
        (Devices.builtIn + [Self.back]).forEach(session.addDevice)
        return session
    }

    @Test("a named output holds against the default speaker, a new headset, a changed device and a wake; only its removal ends it, with an event")
    func namedOutputHolds() throws {
        let session = try kiosk()
        #expect(session.currentRoute.output?.deviceID == Devices.speaker.id)
        let events = EventRecorder(session)
        try session.chooseDevice(Self.back.id, for: .output)
        #expect(session.currentRoute.output == RoutePort(port: .builtInSpeaker, deviceID: Self.back.id, name: Self.back.name))
        #expect(events.routeChanges.map(\.reason) == [.override])

        session.addDevice(Devices.usbHeadset)
        let speaker = Devices.speaker
        session.updateDevice(AudioDevice(id: speaker.id, name: speaker.name, direction: .output,
                                         properties: speaker.properties.merging(["device.port.name": "analog-output-lineout"]) { $1 },
                                         isDefault: true))
        session.systemDidWake()
        #expect(session.currentRoute.output?.deviceID == Self.back.id)
        #expect(session.state.chosenOutput == Self.back.id)

        _ = events.take()
        session.removeDevice(id: Self.back.id)
        #expect(session.currentRoute.output?.deviceID == Devices.usbHeadset.id)
        #expect(session.state.chosenOutput == nil)
        #expect(events.events.first == .deviceChoiceEnded(deviceID: Self.back.id, direction: .output))
        #expect(events.routeChanges.map(\.reason) == [.oldDeviceUnavailable])
        #expect(events.routeChanges.first?.previous.output?.deviceID == Self.back.id)

        // Back again is just a device: the choice is over.
        session.addDevice(Self.back)
        #expect(session.currentRoute.output?.deviceID == Devices.usbHeadset.id)
    }

    @Test("the speaker override wins while it lasts, then the named output is back")
    func speakerOverrideOnTop() throws {
        let session = try kiosk()
        try session.chooseDevice(Self.back.id, for: .output)
        try session.overrideOutputPort(.speaker)
        #expect(session.currentRoute.output?.deviceID == Devices.speaker.id)
        session.addDevice(Devices.usbHeadset)
        #expect(session.currentRoute.output?.deviceID == Self.back.id)
    }

    @Test("a device that is not connected cannot be named, and the refusal names it")
    func absentDeviceRefused() throws {
        let session = try kiosk()
        #expect {
            try session.chooseDevice("front", for: .output)
        } throws: { error in
            guard case .resourceNotAvailable(let reason) = error as? AudioSessionError else { return false }
            return reason.contains("'front'")
        }
        // An input is not an output.
        #expect(throws: AudioSessionError.self) { try session.chooseDevice(Devices.builtInMic.id, for: .output) }
        #expect(session.state.chosenOutput == nil)
    }

    @Test("a named microphone, a sink monitor included, holds against a new USB microphone; its removal hands the input to the route")
    func namedMicrophoneHolds() throws {
        var settings = SessionSettings()
        settings.baseConfiguration = try AudioConfiguration(category: .playAndRecord, options: .defaultToSpeaker)
        let session = try kiosk(settings)
        try session.chooseDevice(Devices.speakerMonitor.id, for: .input)
        #expect(session.currentRoute.input == RoutePort(port: .builtInMic, deviceID: Devices.speakerMonitor.id, name: Devices.speakerMonitor.name))
        session.addDevice(Devices.usbMic)
        #expect(session.currentRoute.input?.deviceID == Devices.speakerMonitor.id)
        let events = EventRecorder(session)
        session.removeDevice(id: Devices.speakerMonitor.id)
        #expect(session.currentRoute.input?.deviceID == Devices.usbMic.id)
        #expect(events.events.first == .deviceChoiceEnded(deviceID: Devices.speakerMonitor.id, direction: .input))
        #expect(session.state.chosenInput == nil)
    }

    @Test("a named Bluetooth headset keeps the choice across its profile switch (a renamed sink)")
    func profileSwitchKeepsChoice() throws {
        var settings = SessionSettings()
        settings.baseConfiguration = try AudioConfiguration(category: .playAndRecord, options: [.defaultToSpeaker, .allowBluetooth, .allowBluetoothA2DP])
        let session = try kiosk(settings)
        session.addDevice(Devices.bluetoothHeadsetA2DP)
        session.addDevice(Devices.usbHeadset)
        try session.chooseDevice(Devices.bluetoothHeadsetA2DP.id, for: .output)
        session.updateDevice(Devices.bluetoothHeadsetHFP, replacing: Devices.bluetoothHeadsetA2DP.id)
        #expect(session.state.chosenOutput == Devices.bluetoothHeadsetHFP.id)
        #expect(session.currentRoute.output?.deviceID == Devices.bluetoothHeadsetHFP.id)
    }
}
