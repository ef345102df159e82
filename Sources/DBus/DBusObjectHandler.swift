/// What answers for an exported object: its method calls and property reads and writes.
///
/// Called on the object's own D-Bus thread, one call at a time; a call may block briefly (it
/// holds up only this object's other calls).
public protocol DBusObjectHandler: Sendable {
    /// Answers `interface.method(arguments)`.
    func call(interface: String, method: String, arguments: [DBusValue]) -> DBusReply
    /// The value of a readable property; nil when it has none now (the caller gets an error).
    func property(interface: String, name: String) -> DBusValue?
    /// Writes a writable property; returns an error message when the value is refused.
    func setProperty(interface: String, name: String, value: DBusValue) -> String?
}
