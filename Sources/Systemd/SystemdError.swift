import Foundation

/// Everything the libsystemd bindings can fail with, each case readable by a kiosk operator.
public enum SystemdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `sd_notify` could not reach the service manager's socket (`NOTIFY_SOCKET`).
    case notifyFailed(state: String, errno: Int32)
    /// `sd_journal_sendv` could not write to the journal's socket.
    case journalSendFailed(errno: Int32)
    /// A journal field name that journald would drop: uppercase letters, digits and `_`, not starting with `_` or a digit.
    case invalidFieldName(String)

    /// What happened, and what to do.
    public var description: String {
        switch self {
        case .notifyFailed(let state, let number):
            return "cannot tell the service manager \"\(state)\": \(String(cString: strerror(number))) "
                + "(is NOTIFY_SOCKET a socket systemd listens on? run the unit with Type=notify)"
        case .journalSendFailed(let number):
            return "cannot write to the journal: \(String(cString: strerror(number))) (is systemd-journald running?)"
        case .invalidFieldName(let name):
            return "\"\(name)\" is not a journal field name: use uppercase letters, digits and '_', not starting with '_' or a digit"
        }
    }
}
