/// Maps sound-server devices to ports with an ordered table of rules; the first match wins.
///
/// The standard table reads the properties GStreamer's device monitor reports (DESIGN §4,
/// GSTREAMER-NOTES §5): form factor, bus, API, class, profile and port names. Monitors of sinks
/// are never inputs. Integrators may replace or extend ``rules`` for unusual hardware.
public struct PortClassifier: Sendable, Hashable {
    /// A test on one device.
    public indirect enum Condition: Sendable, Hashable {
        /// The device plays (output) or records (input).
        case direction(AudioDevice.Direction)
        /// The property equals one of the values (case-insensitive).
        case equals(String, [String])
        /// The property contains one of the substrings (case-insensitive).
        case contains(String, [String])
        /// At least one of the conditions holds.
        case any([Condition])
        /// The device's server id (a PulseAudio sink or source name) is one of these (case-insensitive).
        case deviceID([String])

        /// Whether the device passes this test.
        public func matches(_ device: AudioDevice) -> Bool {
            lowercased.matchesLowercased(device)
        }

        /// The same test with every value lowercased, so matching lowercases only the device's side.
        var lowercased: Condition {
            switch self {
            case .direction: self
            case .equals(let key, let values): .equals(key, values.map { $0.lowercased() })
            case .contains(let key, let substrings): .contains(key, substrings.map { $0.lowercased() })
            case .any(let conditions): .any(conditions.map(\.lowercased))
            case .deviceID(let ids): .deviceID(ids.map { $0.lowercased() })
            }
        }

        /// Matches a condition whose values are already lowercase.
        func matchesLowercased(_ device: AudioDevice) -> Bool {
            switch self {
            case .direction(let direction):
                return device.direction == direction
            case .equals(let key, let values):
                guard let value = device.property(key) else { return false }
                return values.contains(value)
            case .contains(let key, let substrings):
                guard let value = device.property(key) else { return false }
                return substrings.contains { value.contains($0) }
            case .any(let conditions):
                return conditions.contains { $0.matchesLowercased(device) }
            case .deviceID(let ids):
                return ids.contains(device.id.lowercased())
            }
        }
    }

    /// One row of the table: when every condition holds, the device is this port (nil: ignore it).
    public struct Rule: Sendable, Hashable {
        /// A short name for logs and tests.
        public let name: String
        /// The tests, all of which must hold.
        public let conditions: [Condition]
        /// The resulting port, or nil to exclude the device from routing.
        public let port: Port?

        /// Describes a rule.
        public init(_ name: String, when conditions: [Condition], port: Port?) {
            self.name = name
            self.conditions = conditions
            self.port = port
        }
    }

    /// The rules, tried in order.
    public var rules: [Rule] {
        didSet { lowercasedRules = Self.lowercase(rules) }
    }

    /// The rules with their values lowercased once, which is what matching uses.
    private var lowercasedRules: [Rule]

    /// Creates a classifier from a table of rules.
    public init(rules: [Rule]) {
        self.rules = rules
        lowercasedRules = Self.lowercase(rules)
    }

    private static func lowercase(_ rules: [Rule]) -> [Rule] {
        rules.map { Rule($0.name, when: $0.conditions.map(\.lowercased), port: $0.port) }
    }

    /// Profile-name fragments of the Bluetooth hands-free and headset profiles (PulseAudio, PipeWire).
    public static let handsFreeProfileMarkers = [
        "headset_head_unit", "handsfree_head_unit", "headset-head-unit", "handsfree-head-unit",
        "headset_audio_gateway", "audio-gateway", "hsp", "hfp",
    ]
    /// Form factors of devices worn on the head.
    public static let headFormFactors = ["headset", "headphone", "hands-free"]

    private static let bluetooth = Condition.any([
        .equals(AudioDevice.PropertyKey.bus, ["bluetooth"]),
        .equals(AudioDevice.PropertyKey.api, ["bluez", "bluez5"]),
    ])
    private static let handsFreeProfile = Condition.any([
        .contains(AudioDevice.PropertyKey.profileName, handsFreeProfileMarkers),
        .contains(AudioDevice.PropertyKey.bluetoothProtocol, handsFreeProfileMarkers),
        .contains(AudioDevice.PropertyKey.bluez5Profile, handsFreeProfileMarkers),
    ])
    private static let headsetTraits = Condition.any([
        .equals(AudioDevice.PropertyKey.formFactor, ["headset", "hands-free"]),
        .contains(AudioDevice.PropertyKey.intendedRoles, ["phone"]),
        .contains(AudioDevice.PropertyKey.iconName, ["headset"]),
        .contains(AudioDevice.PropertyKey.portName, ["headset"]),
    ])
    private static let stereoHeadFormFactor = Condition.equals(AudioDevice.PropertyKey.formFactor, ["headset", "headphone"])
    private static let worn = Condition.any([
        .equals(AudioDevice.PropertyKey.formFactor, headFormFactors),
        .contains(AudioDevice.PropertyKey.portName, ["headphone", "headset"]),
    ])

    /// The standard table.
    public static let standard = PortClassifier(rules: [
        Rule("sink monitor", when: [.equals(AudioDevice.PropertyKey.deviceClass, ["monitor"])], port: nil),
        // The stand-in PulseAudio (module-always-sink) and pipewire-pulse keep when no device is
        // left: it makes no sound, so it is never a route.
        Rule("dummy output", when: [.any([.deviceID(["auto_null"]), .equals(AudioDevice.PropertyKey.description, ["Dummy Output"])])], port: nil),
        Rule("bluetooth hands-free profile", when: [bluetooth, handsFreeProfile], port: .bluetoothHFP),
        Rule("bluetooth microphone", when: [bluetooth, .direction(.input)], port: .bluetoothHFP),
        Rule("bluetooth stereo", when: [bluetooth], port: .bluetoothA2DP),
        Rule(
            "HDMI",
            when: [
                .direction(.output),
                .any([
                    .contains(AudioDevice.PropertyKey.profileName, ["hdmi", "displayport"]),
                    .contains(AudioDevice.PropertyKey.portName, ["hdmi", "displayport"]),
                    .equals(AudioDevice.PropertyKey.formFactor, ["tv"]),
                ]),
            ], port: .HDMI),
        Rule("wired headphones", when: [.direction(.output), worn], port: .headphones),
        Rule("wired headset microphone", when: [.direction(.input), worn], port: .headsetMic),
        Rule("USB audio", when: [.equals(AudioDevice.PropertyKey.bus, ["usb"])], port: .usbAudio),
        Rule(
            "line out",
            when: [
                .direction(.output),
                .any([
                    .contains(AudioDevice.PropertyKey.portName, ["lineout", "line-out", "line_out"]),
                    .equals(AudioDevice.PropertyKey.formFactor, ["hifi"]),
                ]),
            ], port: .lineOut),
        Rule(
            "receiver",
            when: [
                .direction(.output),
                .any([
                    .equals(AudioDevice.PropertyKey.formFactor, ["handset"]),
                    .contains(AudioDevice.PropertyKey.portName, ["earpiece", "receiver", "handset"]),
                ]),
            ], port: .builtInReceiver),
        Rule("speaker", when: [.direction(.output)], port: .builtInSpeaker),
        Rule("microphone", when: [.direction(.input)], port: .builtInMic),
    ])

    /// Classifies a device, or returns nil when no rule matches or the matching rule excludes it.
    public func classify(_ device: AudioDevice) -> DeviceClassification? {
        guard
            let rule = lowercasedRules.first(where: { rule in
                rule.conditions.allSatisfy { $0.matchesLowercased(device) }
            }),
            let port = rule.port, device.direction == .output ? port.isOutput : port.isInput
        else { return nil }
        let isBluetooth = Self.bluetooth.matchesLowercased(device)
        let isHeadset = port == .headsetMic || port == .bluetoothHFP || Self.headsetTraits.matchesLowercased(device)
        let supportsHFP = port == .bluetoothHFP || (isBluetooth && isHeadset)
        let supportsA2DP =
            port == .bluetoothA2DP
            || (port == .bluetoothHFP && device.direction == .output
                && Self.stereoHeadFormFactor.matchesLowercased(device))
        return DeviceClassification(
            port: port, rule: rule.name, isHeadset: isHeadset, supportsA2DP: supportsA2DP, supportsHFP: supportsHFP,
            physicalID: isBluetooth ? Self.bluetoothAddress(of: device) : device.id)
    }

    /// The Bluetooth address, from the properties or the PulseAudio device name ("bluez_sink.<address>.<profile>").
    private static func bluetoothAddress(of device: AudioDevice) -> String {
        if let address = device.property(AudioDevice.PropertyKey.bluez5Address) { return address }
        if let address = device.property(AudioDevice.PropertyKey.deviceString), address.contains(":") {
            return address
        }
        let parts = device.id.split(separator: ".")
        if device.id.hasPrefix("bluez_"), parts.count >= 2 {
            return String(parts[1].map { $0 == "_" ? ":" : $0 }).lowercased()
        }
        return device.id
    }
}
