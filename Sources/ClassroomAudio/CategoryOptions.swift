/// Fine-tuning of a ``Category``: the third part of an ``AudioConfiguration``.
///
/// Each option is legal only with some categories (``legalCategories``); passing it with any
/// other category is an error, never silently dropped.
public struct CategoryOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The option bits.
    public let rawValue: UInt32

    /// Creates an option set from its bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Mix with other sound-server clients instead of interrupting them.
    public static let mixWithOthers = CategoryOptions(rawValue: 1 << 0)
    /// Lower the volume of other clients while active (implies `mixWithOthers`).
    public static let duckOthers = CategoryOptions(rawValue: 1 << 1)
    /// Interrupt other spoken audio and mix with everything else (implies `mixWithOthers`).
    public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 1 << 2)
    /// Offer Bluetooth hands-free (HFP) devices for input and output.
    public static let allowBluetooth = CategoryOptions(rawValue: 1 << 3)
    /// Offer Bluetooth stereo (A2DP) devices for output while recording.
    public static let allowBluetoothA2DP = CategoryOptions(rawValue: 1 << 4)
    /// Offer network (AirPlay-like) outputs.
    public static let allowAirPlay = CategoryOptions(rawValue: 1 << 5)
    /// Play through the built-in speaker, not the receiver, when nothing else is connected.
    public static let defaultToSpeaker = CategoryOptions(rawValue: 1 << 6)
    /// Keep recording when the microphone hardware is muted.
    public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 1 << 7)

    /// Every single option, in declaration order.
    public static let members: [CategoryOptions] = [
        .mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers, .allowBluetooth,
        .allowBluetoothA2DP, .allowAirPlay, .defaultToSpeaker, .overrideMutedMicrophoneInterruption,
    ]

    /// Every option at once.
    public static let all = CategoryOptions(rawValue: (1 << 8) - 1)

    /// The options that, while RTC is live, every configuration must carry (DESIGN §4 rule 5).
    public static let rtcPolicy: CategoryOptions = [.mixWithOthers, .defaultToSpeaker, .allowBluetooth]

    /// The single options contained in this set, in declaration order.
    public var elements: [CategoryOptions] {
        Self.members.filter { contains($0) }
    }

    /// The categories with which every option in this set is legal (all of them for an empty set).
    public var legalCategories: Set<Category> {
        Set(Category.allCases.filter { $0.allowedOptions.isSuperset(of: self) })
    }

    /// Options that the options in this set turn on by themselves.
    public var impliedOptions: CategoryOptions {
        contains(.duckOthers) || contains(.interruptSpokenAudioAndMixWithOthers) ? .mixWithOthers : []
    }

    /// The option names joined with ", ", or "none".
    public var description: String {
        let names = elements.map(\.memberName)
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    private var memberName: String {
        switch self {
        case .mixWithOthers: "mixWithOthers"
        case .duckOthers: "duckOthers"
        case .interruptSpokenAudioAndMixWithOthers: "interruptSpokenAudioAndMixWithOthers"
        case .allowBluetooth: "allowBluetooth"
        case .allowBluetoothA2DP: "allowBluetoothA2DP"
        case .allowAirPlay: "allowAirPlay"
        case .defaultToSpeaker: "defaultToSpeaker"
        case .overrideMutedMicrophoneInterruption: "overrideMutedMicrophoneInterruption"
        default: "option(0x\(String(rawValue, radix: 16)))"
        }
    }
}
