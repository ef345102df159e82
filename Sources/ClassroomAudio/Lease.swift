/// A live lease as the session records it: the token and where it was taken.
public struct Lease: Sendable, Hashable {
    /// The token handed to the holder.
    public let token: LeaseToken
    /// Where the lease was taken.
    public let callSite: CallSite

    /// Records a lease.
    init(token: LeaseToken, callSite: CallSite) {
        self.token = token
        self.callSite = callSite
    }

    /// What the holder needs.
    public var requirement: AudioRequirement { token.requirement }
    /// The module holding the lease.
    public var owner: String { token.owner }
}
