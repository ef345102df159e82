/// What a module needs from the session while it holds a lease.
public enum AudioRequirement: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Primary playback (the courseware): any category that plays as it stands.
    case playback
    /// Sound effects that mix with everything (ambient when nothing else is needed).
    case effects
    /// Recording without voice processing (follow-reading, speech recognition).
    case record
    /// An RTC call with the microphone connected: recording plus voice processing.
    case voiceCall
    /// Measurement: recording and playback with no signal processing at all.
    case measurement
    /// RTC is live and its audio plays, with the microphone not connected (the audience).
    case rtcPlayback

    /// Whether holding this lease makes RTC live, so the RTC policy applies.
    public var isRTC: Bool {
        self == .voiceCall || self == .rtcPlayback
    }

    /// Whether this need records from an input device.
    public var needsInput: Bool {
        self == .record || self == .voiceCall || self == .measurement
    }

    /// The requirement name as written in logs.
    public var description: String { rawValue }
}
