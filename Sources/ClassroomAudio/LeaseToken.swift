/// Proof of a live lease, returned by ``AudioSession/lease(_:owner:fileID:line:)``.
///
/// Release it with ``AudioSession/release(_:)`` when the need ends. Releasing twice is harmless;
/// releasing a token of another session, or one the session revoked, is an error.
public struct LeaseToken: Sendable, Hashable, CustomStringConvertible {
    /// The session that issued the token.
    public let sessionID: UInt64
    /// The token's number, unique within its session and increasing with acquisition order.
    public let serial: UInt64
    /// The module holding the lease.
    public let owner: String
    /// What the holder needs.
    public let requirement: AudioRequirement

    init(sessionID: UInt64, serial: UInt64, owner: String, requirement: AudioRequirement) {
        self.sessionID = sessionID
        self.serial = serial
        self.owner = owner
        self.requirement = requirement
    }

    /// "lease #3 (follow-reading, record)".
    public var description: String { "lease #\(serial) (\(owner), \(requirement))" }
}
