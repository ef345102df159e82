/// An explicit output choice that lasts until the next route change.
public enum PortOverride: String, Sendable, Hashable, CaseIterable {
    /// No override: the normal route choice applies.
    case none
    /// Play through the built-in speaker and record from the built-in microphone.
    case speaker
}
