/// Everything the audio session can refuse, each with a message a kiosk operator can act on.
///
/// The case says what kind of failure it is; the reason names the offending part (the category,
/// mode, option, token or value) and what would be accepted instead.
public enum AudioSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sound server is gone; nothing can be activated until it returns.
    case mediaServicesFailed(reason: String)
    /// The session cannot be deactivated while audio input or output is still running.
    case isBusy(reason: String)
    /// The request is not allowed in this category (a mode, a port or an action the category lacks).
    case incompatibleCategory(reason: String)
    /// The session cannot interrupt the audio that currently owns the output.
    case cannotInterruptOthers(reason: String)
    /// Playback could not start.
    case cannotStartPlaying(reason: String)
    /// Recording could not start.
    case cannotStartRecording(reason: String)
    /// A value, option or token is not acceptable.
    case badParam(reason: String)
    /// A more important user of the session is holding what was asked for.
    case insufficientPriority(reason: String)
    /// The hardware needed for the request is not present.
    case resourceNotAvailable(reason: String)
    /// The session is in a state nobody expected.
    case unspecified(reason: String)

    /// The reason alone, without the kind of failure.
    public var reason: String {
        switch self {
        case .mediaServicesFailed(let reason), .isBusy(let reason), .incompatibleCategory(let reason),
            .cannotInterruptOthers(let reason), .cannotStartPlaying(let reason),
            .cannotStartRecording(let reason), .badParam(let reason), .insufficientPriority(let reason),
            .resourceNotAvailable(let reason), .unspecified(let reason):
            reason
        }
    }

    /// A one-line message for logs and the kiosk operator console.
    public var description: String {
        switch self {
        case .mediaServicesFailed: "Sound server unavailable: \(reason)"
        case .isBusy: "Audio session busy: \(reason)"
        case .incompatibleCategory: "Not allowed in this audio category: \(reason)"
        case .cannotInterruptOthers: "Cannot interrupt other audio: \(reason)"
        case .cannotStartPlaying: "Cannot start playback: \(reason)"
        case .cannotStartRecording: "Cannot start recording: \(reason)"
        case .badParam: "Invalid audio session parameter: \(reason)"
        case .insufficientPriority: "Refused, a higher-priority user holds the audio session: \(reason)"
        case .resourceNotAvailable: "Audio hardware not available: \(reason)"
        case .unspecified: "Unexpected audio session state: \(reason)"
        }
    }
}
