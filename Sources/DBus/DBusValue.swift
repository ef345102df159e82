/// A D-Bus value, as a method's argument or result, a property or a signal's argument.
///
/// Only the types MPRIS-style interfaces need; anything else received is `.unsupported` with its
/// signature, so a handler can refuse it by name.
public indirect enum DBusValue: Sendable, Equatable {
    /// `b`
    case boolean(Bool)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `d`
    case double(Double)
    /// `s`
    case string(String)
    /// `o`
    case objectPath(String)
    /// `as`
    case strings([String])
    /// `a{sv}`: a dictionary of variants, in order.
    case dictionary([(String, DBusValue)])
    /// `v`
    case variant(DBusValue)
    /// `(…)`: the arguments of a method, a result or a signal.
    case tuple([DBusValue])
    /// A value of a type these bindings do not convert, with its D-Bus signature.
    case unsupported(signature: String)

    /// Same type and same value (dictionaries in the same order).
    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.int32(a), .int32(b)): return a == b
        case let (.uint32(a), .uint32(b)): return a == b
        case let (.int64(a), .int64(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)), let (.objectPath(a), .objectPath(b)): return a == b
        case let (.strings(a), .strings(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.variant(a), .variant(b)): return a == b
        case let (.tuple(a), .tuple(b)): return a == b
        case let (.unsupported(a), .unsupported(b)): return a == b
        default: return false
        }
    }

    /// The value of `key` in a dictionary.
    public subscript(key: String) -> DBusValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }
}
