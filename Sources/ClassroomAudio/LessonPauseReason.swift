/// Why the session asks the lesson player to pause.
public enum LessonPauseReason: Sendable, Hashable {
    /// An interruption began.
    case interruption(InterruptionSource)
    /// The personal device the lesson was playing through was disconnected.
    case headphonesUnplugged(Port)
}
