/// The kind of device a route goes through (DESIGN §4, "Routes").
public enum Port: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The kiosk's own loudspeaker.
    case builtInSpeaker
    /// A handset earpiece built into the kiosk.
    case builtInReceiver
    /// Wired headphones or the speakers of a wired headset.
    case headphones
    /// The microphone of a wired headset.
    case headsetMic
    /// A Bluetooth device in the hands-free profile (mono, with microphone).
    case bluetoothHFP
    /// A Bluetooth device in the stereo playback profile (no microphone).
    case bluetoothA2DP
    /// A USB audio interface, speaker or microphone.
    case usbAudio
    /// A display or receiver on HDMI.
    case HDMI
    /// An analogue line output to an amplifier.
    case lineOut
    /// The kiosk's own microphone.
    case builtInMic

    /// Whether audio can be played through this port.
    public var isOutput: Bool {
        switch self {
        case .headsetMic, .builtInMic: false
        default: true
        }
    }

    /// Whether audio can be recorded through this port.
    public var isInput: Bool {
        switch self {
        case .headsetMic, .builtInMic, .bluetoothHFP, .usbAudio: true
        default: false
        }
    }

    /// Whether the port is part of the kiosk itself rather than connected to it.
    public var isBuiltIn: Bool {
        self == .builtInSpeaker || self == .builtInReceiver || self == .builtInMic
    }

    /// Whether the port is worn by the student, so unplugging it should pause the lesson.
    public var isPersonal: Bool {
        switch self {
        case .headphones, .headsetMic, .bluetoothHFP, .bluetoothA2DP: true
        default: false
        }
    }

    /// Whether the port is a Bluetooth profile.
    public var isBluetooth: Bool {
        self == .bluetoothHFP || self == .bluetoothA2DP
    }

    /// The port name as written in logs.
    public var description: String { rawValue }
}
