/// What the kiosk uses audio for: the first of the three parts of an ``AudioConfiguration``.
///
/// Each category fixes four traits (DESIGN §4): whether it records, whether it plays, whether
/// it mixes with other sound-server clients without an option, and whether the kiosk mute
/// switch silences it.
public enum Category: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Background sound (effects, ambience): plays, always mixes, silenced by the mute switch.
    case ambient
    /// The default: plays, does not mix, silenced by the mute switch.
    case soloAmbient
    /// Primary playback (the courseware): plays, mixes only with `mixWithOthers`, ignores the mute switch.
    case playback
    /// Recording only: stops every other output of the kiosk while active.
    case record
    /// Recording and playback together (RTC, follow-reading): mixes only with `mixWithOthers`.
    case playAndRecord
    /// Several simultaneous inputs and outputs (one stream per device).
    case multiRoute

    /// Whether the category captures audio from an input device.
    public var acceptsInput: Bool {
        switch self {
        case .record, .playAndRecord, .multiRoute: true
        case .ambient, .soloAmbient, .playback: false
        }
    }

    /// Whether the category plays audio to an output device.
    public var producesOutput: Bool {
        self != .record
    }

    /// Whether the category mixes with other audio without the `mixWithOthers` option.
    public var mixesWithOthersByDefault: Bool {
        self == .ambient
    }

    /// Whether the kiosk mute switch silences this category.
    public var isSilencedByMuteSwitch: Bool {
        self == .ambient || self == .soloAmbient
    }

    /// The modes this category accepts, in declaration order.
    public var allowedModes: [Mode] {
        Mode.allCases.filter { $0.compatibleCategories.contains(self) }
    }

    /// Every option that may be passed with this category (DESIGN §4, "Options").
    public var allowedOptions: CategoryOptions {
        let mixing: CategoryOptions = [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers]
        switch self {
        case .ambient: return .mixWithOthers
        case .soloAmbient: return []
        case .playback: return mixing
        case .record: return [.allowBluetooth, .overrideMutedMicrophoneInterruption]
        case .playAndRecord: return .all
        case .multiRoute: return mixing.union(.overrideMutedMicrophoneInterruption)
        }
    }

    /// Options the category sets by itself.
    public var impliedOptions: CategoryOptions {
        self == .ambient ? .mixWithOthers : []
    }

    /// The category name as written in configuration files and logs.
    public var description: String { rawValue }
}
