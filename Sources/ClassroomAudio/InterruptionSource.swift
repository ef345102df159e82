/// What interrupted the session's audio.
public enum InterruptionSource: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The sound server corked our stream (pulsesink posted a `request-state` to PAUSED).
    case soundServerCorked
    /// The output device was lost and nothing can take its place.
    case deviceLost
    /// The sound server died; it ends when the server returns (mediaServicesWereReset).
    case mediaServicesLost
    /// A kiosk announcement (building PA, operator message) took the output.
    case announcement

    /// The source name as written in logs.
    public var description: String { rawValue }
}
