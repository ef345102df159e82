/// Everything the D-Bus bindings can fail with, each case readable by a kiosk operator.
public enum DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No session bus could be reached (`DBUS_SESSION_BUS_ADDRESS`, `$XDG_RUNTIME_DIR/bus`).
    case noBus(String)
    /// The introspection XML is not valid, or lacks an interface it should have.
    case badInterface(String)
    /// The object could not be exported at its path.
    case registrationFailed(path: String, reason: String)
    /// The bus name is owned by another process, or the bus refused it.
    case nameUnavailable(name: String, reason: String)

    /// What happened, and what to do.
    public var description: String {
        switch self {
        case .noBus(let why):
            return "no D-Bus session bus: \(why) (set DBUS_SESSION_BUS_ADDRESS, or run inside a desktop or user session)"
        case .badInterface(let why):
            return "the D-Bus interface description is wrong: \(why)"
        case .registrationFailed(let path, let reason):
            return "cannot export the D-Bus object \(path): \(reason)"
        case .nameUnavailable(let name, let reason):
            return "cannot own the D-Bus name \(name): \(reason) (is another instance running?)"
        }
    }
}
