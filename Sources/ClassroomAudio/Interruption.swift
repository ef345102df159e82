/// One interruption in progress: its source and where it was reported.
public struct Interruption: Sendable, Hashable {
    /// What interrupted the session.
    public let source: InterruptionSource
    /// Where the interruption was reported.
    public let callSite: CallSite

    /// Records an interruption.
    public init(source: InterruptionSource, callSite: CallSite) {
        self.source = source
        self.callSite = callSite
    }
}
