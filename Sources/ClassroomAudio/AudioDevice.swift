/// A sound-server device as the engine's device monitor reports it.
public struct AudioDevice: Sendable, Hashable, CustomStringConvertible {
    /// Whether a device plays or records.
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        /// A sink: audio is played through it.
        case output
        /// A source: audio is recorded from it.
        case input
    }

    /// Property names the classifier reads (the PulseAudio/PipeWire proplist as GStreamer exposes it).
    public enum PropertyKey {
        /// `device.form_factor`: internal, speaker, handset, tv, webcam, microphone, headset, headphone, hands-free, car, hifi, computer, portable.
        public static let formFactor = "device.form_factor"
        /// `device.bus`: pci, usb, bluetooth, firewire, isa.
        public static let bus = "device.bus"
        /// `device.api`: alsa, bluez, …
        public static let api = "device.api"
        /// `device.class`: sound, monitor, abstract, modem, filter.
        public static let deviceClass = "device.class"
        /// `device.profile.name`: the card profile (analog-stereo, hdmi-stereo, a2dp_sink, headset_head_unit).
        public static let profileName = "device.profile.name"
        /// `device.port.name`: the active port, copied by the engine (analog-output-headphones, hdmi-output-0).
        public static let portName = "device.port.name"
        /// `device.icon_name`: audio-headset-bluetooth, audio-card, …
        public static let iconName = "device.icon_name"
        /// `device.intended_roles`: space-separated roles such as "phone".
        public static let intendedRoles = "device.intended_roles"
        /// `bluetooth.protocol`: the Bluetooth profile on PulseAudio 13 and later.
        public static let bluetoothProtocol = "bluetooth.protocol"
        /// `api.bluez5.profile`: the Bluetooth profile on PipeWire.
        public static let bluez5Profile = "api.bluez5.profile"
        /// `api.bluez5.address`: the Bluetooth address on PipeWire.
        public static let bluez5Address = "api.bluez5.address"
        /// `device.string`: the ALSA device or, for Bluetooth on PulseAudio, the device address.
        public static let deviceString = "device.string"
        /// `device.description`: the name the sound server shows ("Dummy Output" for its stand-in sink).
        public static let description = "device.description"
    }

    /// The sound-server name of the device ("headset", "alsa_output.pci-0000_00_1f.3.analog-stereo").
    public let id: String
    /// The human-readable description.
    public let name: String
    /// Whether the device plays or records.
    public let direction: Direction
    /// The device properties (PulseAudio/PipeWire proplist).
    public let properties: [String: String]
    /// Whether the sound server currently uses the device as its default.
    public let isDefault: Bool

    /// Describes a device.
    public init(
        id: String, name: String, direction: Direction, properties: [String: String] = [:], isDefault: Bool = false
    ) {
        self.id = id
        self.name = name
        self.direction = direction
        self.properties = properties
        self.isDefault = isDefault
    }

    /// A property value, lowercased, or nil when absent.
    public func property(_ key: String) -> String? {
        properties[key]?.lowercased()
    }

    /// "headset (USB Headset, output)".
    public var description: String { "\(id) (\(name), \(direction.rawValue))" }
}
