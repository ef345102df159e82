import ClassroomAudio
import Logging
import Synchronization

/// A logger that discards everything, so test output stays readable.
let quietLogger = Logger(label: "classroom-audio.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// A session with simulated hardware and the given settings.
func makeSession(
    _ settings: SessionSettings = SessionSettings(), hardware: SimulatedAudioHardware = SimulatedAudioHardware()
) throws -> AudioSession {
    try AudioSession(settings: settings, hardware: hardware, logger: quietLogger)
}

/// Every event a session delivers, in delivery order.
final class EventRecorder: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[SessionEvent]>([])
    }

    private let storage = Storage()
    private let observation: ObservationToken

    init(_ session: AudioSession) {
        let storage = storage
        observation = session.observe { event in storage.events.withLock { $0.append(event) } }
    }

    /// Everything recorded so far.
    var events: [SessionEvent] { storage.events.withLock { $0 } }

    /// Everything recorded since the last call, then forgets it.
    func take() -> [SessionEvent] {
        storage.events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    var configurationChanges: [(old: AudioConfiguration, new: AudioConfiguration, reason: ConfigurationChangeReason)] {
        events.compactMap { event in
            if case .configurationChanged(let old, let new, let reason) = event { return (old, new, reason) }
            return nil
        }
    }

    var routeChanges: [(reason: RouteChangeReason, previous: AudioRoute, current: AudioRoute)] {
        events.compactMap { event in
            if case .routeChanged(let reason, let previous, let current) = event { return (reason, previous, current) }
            return nil
        }
    }

    var alarms: [Alarm] {
        events.compactMap { event in
            if case .alarm(let alarm) = event { return alarm }
            return nil
        }
    }

    var lessonPauses: [LessonPauseReason] {
        events.compactMap { event in
            if case .lessonPauseRequested(let reason) = event { return reason }
            return nil
        }
    }

    func cancel() { observation.cancel() }
}

/// A small, seedable random generator for the concurrent tests (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Devices as PulseAudio reports them through GStreamer's device monitor.
enum Devices {
    static let speaker = AudioDevice(
        id: "alsa_output.pci-0000_00_1f.3.analog-stereo", name: "Built-in Audio Analog Stereo", direction: .output,
        properties: [
            "device.api": "alsa", "device.bus": "pci", "device.class": "sound", "device.form_factor": "internal",
            "device.profile.name": "analog-stereo", "device.port.name": "analog-output-speaker",
        ], isDefault: true)
    static let nullSpeaker = AudioDevice(
        id: "speaker", name: "Speaker", direction: .output,
        properties: ["device.class": "abstract", "device.description": "Speaker"], isDefault: true)
    static let receiver = AudioDevice(
        id: "alsa_output.earpiece", name: "Earpiece", direction: .output,
        properties: ["device.api": "alsa", "device.bus": "pci", "device.form_factor": "handset"])
    static let builtInMic = AudioDevice(
        id: "alsa_input.pci-0000_00_1f.3.analog-stereo", name: "Built-in Audio Microphone", direction: .input,
        properties: [
            "device.api": "alsa", "device.bus": "pci", "device.class": "sound", "device.form_factor": "internal",
            "device.port.name": "analog-input-internal-mic",
        ], isDefault: true)
    static let speakerMonitor = AudioDevice(
        id: "alsa_output.pci-0000_00_1f.3.analog-stereo.monitor", name: "Monitor of Built-in Audio",
        direction: .input, properties: ["device.class": "monitor", "device.bus": "pci"])
    static let usbHeadset = AudioDevice(
        id: "headset", name: "USB Headset", direction: .output,
        properties: ["device.form_factor": "headset", "device.bus": "usb", "device.class": "sound"])
    static let usbHeadsetMic = AudioDevice(
        id: "headset_mic", name: "USB Headset Mic", direction: .input,
        properties: ["device.form_factor": "headset", "device.bus": "usb", "device.class": "sound"])
    static let jackHeadphones = AudioDevice(
        id: "alsa_output.pci.analog-headphones", name: "Headphones", direction: .output,
        properties: ["device.api": "alsa", "device.bus": "pci", "device.port.name": "analog-output-headphones"])
    static let jackHeadsetMic = AudioDevice(
        id: "alsa_input.pci.analog-headset-mic", name: "Headset Microphone", direction: .input,
        properties: ["device.api": "alsa", "device.bus": "pci", "device.port.name": "analog-input-headset-mic"])
    static let usbSpeaker = AudioDevice(
        id: "alsa_output.usb-speaker", name: "USB Speaker", direction: .output,
        properties: ["device.api": "alsa", "device.bus": "usb", "device.form_factor": "speaker"])
    static let usbMic = AudioDevice(
        id: "alsa_input.usb-mic", name: "USB Microphone", direction: .input,
        properties: ["device.api": "alsa", "device.bus": "usb", "device.form_factor": "microphone"])
    static let hdmi = AudioDevice(
        id: "alsa_output.pci.hdmi-stereo", name: "HDMI Display", direction: .output,
        properties: ["device.api": "alsa", "device.bus": "pci", "device.profile.name": "hdmi-stereo"])
    static let lineOut = AudioDevice(
        id: "alsa_output.pci.analog-lineout", name: "Line Out", direction: .output,
        properties: ["device.api": "alsa", "device.bus": "pci", "device.port.name": "analog-output-lineout"])

    static let bluetoothAddress = "00:11:22:33:44:55"
    static let bluetoothHeadsetA2DP = AudioDevice(
        id: "bluez_sink.00_11_22_33_44_55.a2dp_sink", name: "BT Headset", direction: .output,
        properties: [
            "device.api": "bluez", "device.bus": "bluetooth", "device.form_factor": "headset",
            "device.string": bluetoothAddress, "bluetooth.protocol": "a2dp_sink",
            "device.icon_name": "audio-headset-bluetooth", "device.intended_roles": "phone",
        ])
    static let bluetoothHeadsetHFP = AudioDevice(
        id: "bluez_sink.00_11_22_33_44_55.handsfree_head_unit", name: "BT Headset", direction: .output,
        properties: [
            "device.api": "bluez", "device.bus": "bluetooth", "device.form_factor": "headset",
            "device.string": bluetoothAddress, "bluetooth.protocol": "handsfree_head_unit",
            "device.icon_name": "audio-headset-bluetooth", "device.intended_roles": "phone",
        ])
    static let bluetoothHeadsetMic = AudioDevice(
        id: "bluez_source.00_11_22_33_44_55.handsfree_head_unit", name: "BT Headset", direction: .input,
        properties: [
            "device.api": "bluez", "device.bus": "bluetooth", "device.form_factor": "headset",
            "device.string": bluetoothAddress, "bluetooth.protocol": "handsfree_head_unit",
        ])
    static let bluetoothSpeaker = AudioDevice(
        id: "bluez_output.66_77_88_99_AA_BB.1", name: "BT Speaker", direction: .output,
        properties: [
            "device.api": "bluez5", "device.form_factor": "speaker", "api.bluez5.address": "66:77:88:99:AA:BB",
            "api.bluez5.profile": "a2dp-sink",
        ])

    /// The kiosk's own devices, present from the start.
    static let builtIn = [speaker, builtInMic, speakerMonitor]
}

/// Every legal configuration: all categories × their modes × every legal option subset.
let allLegalConfigurations: [AudioConfiguration] = {
    var configurations = Set<AudioConfiguration>()
    for category in Category.allCases {
        let allowed = category.allowedOptions.rawValue
        for mode in category.allowedModes {
            // Every subset of the allowed option bits.
            var subset: UInt32 = 0
            repeat {
                if let configuration = try? AudioConfiguration(
                    category: category, mode: mode, options: CategoryOptions(rawValue: subset))
                {
                    configurations.insert(configuration)
                }
                subset = (subset &- allowed) & allowed
            } while subset != 0
        }
    }
    return configurations.sorted { "\($0)" < "\($1)" }
}()

/// All permutations of a small array.
func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { index -> [[T]] in
        var rest = items
        let head = rest.remove(at: index)
        return permutations(rest).map { [head] + $0 }
    }
}
