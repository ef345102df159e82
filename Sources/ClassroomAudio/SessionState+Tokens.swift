extension SessionState {
    /// Checks that a token was issued by this session and not revoked.
    ///
    /// Returns normally for a live token and for one already released (releasing twice is harmless).
    func validateToken(sessionID: UInt64, serial: UInt64, describedAs token: String) throws(AudioSessionError) {
        guard sessionID == self.sessionID else {
            throw .badParam(
                reason: "\(token) belongs to audio session \(sessionID), not to this one (\(self.sessionID)); "
                    + "release it on the session that issued it")
        }
        guard serial < nextSerial else {
            throw .badParam(reason: "\(token) was never issued by this audio session")
        }
        guard !revokedSerials.contains(serial) else {
            throw .badParam(
                reason: "\(token) is stale: the session revoked it when its owner was torn down; "
                    + "take a new one instead of releasing the old one")
        }
    }

    /// Takes the next token serial.
    mutating func issueSerial() -> UInt64 {
        defer { nextSerial += 1 }
        return nextSerial
    }
}
