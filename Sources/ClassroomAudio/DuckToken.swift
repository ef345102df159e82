/// Proof of a live ducking request, returned by ``AudioSession/duck(owner:fileID:line:)``.
///
/// Release it with ``AudioSession/releaseDuck(_:)``. Releasing twice is harmless; releasing a
/// token of another session, or one the session revoked, is an error.
public struct DuckToken: Sendable, Hashable, CustomStringConvertible {
    /// The session that issued the token.
    public let sessionID: UInt64
    /// The token's number, unique within its session.
    public let serial: UInt64
    /// The module that asked for ducking.
    public let owner: String

    init(sessionID: UInt64, serial: UInt64, owner: String) {
        self.sessionID = sessionID
        self.serial = serial
        self.owner = owner
    }

    /// "duck #4 (announcement)".
    public var description: String { "duck #\(serial) (\(owner))" }
}
