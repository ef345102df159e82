import ClassroomAudio
import Testing

@Suite("Port classifier")
struct PortClassifierTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let device: AudioDevice
        let rule: String
        let port: Port?
        var testDescription: String { "\(device.id) → \(port.map(\.rawValue) ?? "excluded")" }
    }

    static let rows: [Row] = [
        Row(device: Devices.speakerMonitor, rule: "sink monitor", port: nil),
        Row(device: AudioDevice(id: "auto_null", name: "Dummy Output", direction: .output,
                                properties: ["device.description": "Dummy Output", "device.class": "abstract"]),
            rule: "dummy output", port: nil),
        Row(device: AudioDevice(id: "null-sink-from-pipewire", name: "Dummy Output", direction: .output, properties: ["device.description": "Dummy Output"]),
            rule: "dummy output", port: nil),
        Row(device: Devices.bluetoothHeadsetHFP, rule: "bluetooth hands-free profile", port: .bluetoothHFP),
        Row(device: Devices.bluetoothHeadsetMic, rule: "bluetooth hands-free profile", port: .bluetoothHFP),
        Row(
            device: AudioDevice(
                id: "bluez_source.AA_BB_CC_DD_EE_FF", name: "BT Mic", direction: .input,
                properties: ["device.bus": "bluetooth"]),
            rule: "bluetooth microphone", port: .bluetoothHFP),
        Row(device: Devices.bluetoothHeadsetA2DP, rule: "bluetooth stereo", port: .bluetoothA2DP),
        Row(device: Devices.bluetoothSpeaker, rule: "bluetooth stereo", port: .bluetoothA2DP),
        Row(device: Devices.hdmi, rule: "HDMI", port: .HDMI),
        Row(
            device: AudioDevice(
                id: "tv", name: "TV", direction: .output, properties: ["device.form_factor": "tv"]),
            rule: "HDMI", port: .HDMI),
        Row(device: Devices.usbHeadset, rule: "wired headphones", port: .headphones),
        Row(device: Devices.jackHeadphones, rule: "wired headphones", port: .headphones),
        Row(device: Devices.usbHeadsetMic, rule: "wired headset microphone", port: .headsetMic),
        Row(device: Devices.jackHeadsetMic, rule: "wired headset microphone", port: .headsetMic),
        Row(device: Devices.usbSpeaker, rule: "USB audio", port: .usbAudio),
        Row(device: Devices.usbMic, rule: "USB audio", port: .usbAudio),
        Row(device: Devices.lineOut, rule: "line out", port: .lineOut),
        Row(device: Devices.receiver, rule: "receiver", port: .builtInReceiver),
        Row(device: Devices.speaker, rule: "speaker", port: .builtInSpeaker),
        Row(device: Devices.nullSpeaker, rule: "speaker", port: .builtInSpeaker),
        Row(device: Devices.builtInMic, rule: "microphone", port: .builtInMic),
    ]

    @Test("each device is classified by the expected row", arguments: rows)
    func row(_ row: Row) {
        let classification = PortClassifier.standard.classify(row.device)
        #expect(classification?.port == row.port)
        if row.port != nil {
            #expect(classification?.rule == row.rule)
        } else {
            // Excluded by the expected row, not by another one.
            #expect(PortClassifier.standard.rules.first { rule in rule.conditions.allSatisfy { $0.matches(row.device) } }?.name == row.rule)
        }
    }

    @Test("every row of the standard table is exercised by a test device")
    func everyRowCovered() {
        let covered = Set(Self.rows.map(\.rule))
        for rule in PortClassifier.standard.rules {
            #expect(covered.contains(rule.name), "no test for rule \(rule.name)")
        }
    }

    @Test("monitors are never inputs")
    func monitorsExcluded() {
        let monitor = AudioDevice(
            id: "headset.monitor", name: "Monitor of USB Headset", direction: .input,
            properties: ["device.class": "monitor", "device.form_factor": "headset", "device.bus": "usb"])
        #expect(PortClassifier.standard.classify(monitor) == nil)
    }

    @Test("a Bluetooth headset can do both profiles, a Bluetooth speaker only stereo")
    func bluetoothCapabilities() throws {
        let headset = try #require(PortClassifier.standard.classify(Devices.bluetoothHeadsetA2DP))
        #expect(headset.supportsA2DP && headset.supportsHFP && headset.isHeadset)
        #expect(headset.physicalID == Devices.bluetoothAddress)
        let handsFree = try #require(PortClassifier.standard.classify(Devices.bluetoothHeadsetHFP))
        #expect(handsFree.supportsA2DP && handsFree.supportsHFP)
        let microphone = try #require(PortClassifier.standard.classify(Devices.bluetoothHeadsetMic))
        #expect(microphone.physicalID == headset.physicalID)
        let speaker = try #require(PortClassifier.standard.classify(Devices.bluetoothSpeaker))
        #expect(speaker.supportsA2DP && !speaker.supportsHFP && !speaker.isHeadset)
        #expect(speaker.physicalID == "66:77:88:99:aa:bb")
    }

    @Test("the Bluetooth address is read from the PulseAudio sink name when no property carries it")
    func addressFromName() throws {
        let device = AudioDevice(
            id: "bluez_sink.AA_BB_CC_DD_EE_FF.a2dp_sink", name: "BT", direction: .output,
            properties: ["device.api": "bluez"])
        #expect(try #require(PortClassifier.standard.classify(device)).physicalID == "aa:bb:cc:dd:ee:ff")
    }

    @Test("integrators can put their own rows first")
    func customRows() {
        var classifier = PortClassifier.standard
        classifier.rules.insert(
            PortClassifier.Rule("kiosk amplifier", when: [.equals("device.product.name", ["Kiosk Amp"])], port: .lineOut),
            at: 0)
        let amplifier = AudioDevice(
            id: "amp", name: "Amp", direction: .output, properties: ["device.product.name": "kiosk amp", "device.bus": "usb"])
        #expect(classifier.classify(amplifier)?.port == .lineOut)
        #expect(PortClassifier.standard.classify(amplifier)?.port == .usbAudio)
    }

    @Test("a rule that gives an output port to an input device does not apply")
    func directionMismatch() {
        let classifier = PortClassifier(rules: [PortClassifier.Rule("everything is HDMI", when: [], port: .HDMI)])
        #expect(classifier.classify(Devices.builtInMic) == nil)
        #expect(classifier.classify(Devices.speaker)?.port == .HDMI)
    }
}
