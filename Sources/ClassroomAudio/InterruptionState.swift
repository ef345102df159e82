/// The interruption state machine: began → ended(shouldResume), or a dangling interruption
/// that explicit reactivation ends.
public struct InterruptionState: Sendable, Hashable {
    /// The interruptions in progress, in the order they began.
    public internal(set) var active: [Interruption] = []
    /// Whether every interruption ended so far in this episode said the session may resume.
    public internal(set) var resumeWhenEnded = true
    /// Whether the last episode ended without permission to resume, so the session waits for
    /// an explicit `setActive(true)`.
    public internal(set) var awaitingReactivation = false

    /// A state with no interruption.
    public init() {}

    /// Whether an interruption is in progress.
    public var isInterrupted: Bool { !active.isEmpty }

    /// Whether the interruption from this source is in progress.
    public func contains(_ source: InterruptionSource) -> Bool {
        active.contains { $0.source == source }
    }
}
