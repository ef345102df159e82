/// Which signal processing the engine runs, and so which volume channel is active.
public enum ProcessingProfile: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No voice processing; the media volume channel is active.
    case media
    /// Echo cancellation, noise suppression and gain control; the call volume channel is active.
    case voice
    /// No processing at all, for measurement; the media volume channel is active.
    case raw

    /// The volume channel the kiosk volume keys change under this profile.
    public var volumeChannel: VolumeChannel {
        self == .voice ? .call : .media
    }

    /// The profile name as written in logs.
    public var description: String { rawValue }
}
