/// A refinement of a ``Category`` for one kind of use: the second part of an ``AudioConfiguration``.
public enum Mode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No refinement; accepted by every category.
    case `default`
    /// Two-way voice communication (RTC audio call).
    case voiceChat
    /// Video conferencing.
    case videoChat
    /// Voice chat inside a game.
    case gameChat
    /// Recording a video with its sound.
    case videoRecording
    /// Measuring audio input or output: no signal processing at all.
    case measurement
    /// Playing a movie (courseware video).
    case moviePlayback
    /// Continuous spoken audio (an audiobook, a read-aloud lesson).
    case spokenAudio
    /// Short synthesised prompts (text to speech).
    case voicePrompt

    /// The categories that accept this mode (DESIGN §4).
    public var compatibleCategories: Set<Category> {
        switch self {
        case .default: Set(Category.allCases)
        case .voiceChat, .videoChat, .gameChat: [.playAndRecord]
        case .videoRecording: [.playAndRecord, .record]
        case .measurement: [.playAndRecord, .record, .playback]
        case .moviePlayback: [.playback]
        case .spokenAudio, .voicePrompt: [.playback, .playAndRecord]
        }
    }

    /// Whether this is one of the chat modes, which select voice processing.
    public var isChat: Bool {
        self == .voiceChat || self == .videoChat || self == .gameChat
    }

    /// Options this mode sets by itself.
    public var impliedOptions: CategoryOptions {
        switch self {
        case .voiceChat: .allowBluetooth
        case .videoChat: [.allowBluetooth, .defaultToSpeaker]
        default: []
        }
    }

    /// The processing profile the engine runs in this mode.
    public var processingProfile: ProcessingProfile {
        if isChat { return .voice }
        return self == .measurement ? .raw : .media
    }

    /// The mode name as written in configuration files and logs.
    public var description: String { rawValue }
}
