import CGStreamer

/// A value for a GObject property, typed on the Swift side and converted to the property's own
/// GType (with its range checked) when set.
public enum PropertyValue: Sendable, Equatable {
    /// A `gboolean`.
    case bool(Bool)
    /// Any integer type (`gint`, `guint`, `gint64`, `guint64`, `glong` …); range-checked.
    case int(Int64)
    /// An unsigned 64-bit value, for `guint64` properties above `Int64.max` (e.g. `max-latency` = -1 as `GST_CLOCK_TIME_NONE`).
    case uint64(UInt64)
    /// A `gdouble` or `gfloat`.
    case double(Double)
    /// A string: for string properties as is; for enum properties a nick or name; otherwise
    /// parsed with `gst_value_deserialize` (caps, fractions, flags).
    case string(String)
    /// An enum value by nick, e.g. `.enumNick("adaptive-digital")`.
    case enumNick(String)
    /// A `GstCaps` value.
    case caps(Caps)
    /// A `GObject` value (nil clears it).
    case object(Object?)

    public static func == (lhs: PropertyValue, rhs: PropertyValue) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.uint64(a), .uint64(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)), let (.enumNick(a), .enumNick(b)): return a == b
        case let (.caps(a), .caps(b)): return a.isEqual(to: b)
        case let (.object(a), .object(b)):
            switch (a, b) {
            case (nil, nil): return true
            case let (a?, b?): return a.isSame(as: b)
            default: return false
            }
        default: return false
        }
    }
}

extension PropertyValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyValue {
    /// A `ClockTime` for a `guint64` nanosecond property (nil = `GST_CLOCK_TIME_NONE`).
    public static func time(_ time: ClockTime?) -> PropertyValue { .uint64(time.map(\.nanoseconds) ?? UInt64.max) }
}

/// A field value read out of a structure.
public enum StructureValue: Sendable, Equatable {
    /// A boolean.
    case bool(Bool)
    /// A signed integer (or an enum's value).
    case int(Int64)
    /// An unsigned 64-bit integer (times, counts).
    case uint64(UInt64)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// A list, array or GValueArray of values.
    case list([StructureValue])
    /// A nested structure, as text.
    case structure(String)
    /// Any other type, serialised by GStreamer.
    case other(type: String, text: String)

    /// Reads a GValue (see `GValueBridge.read`).
    init(_ value: UnsafePointer<GValue>) { self = GValueBridge.read(value) }

    /// The value as a boolean, if it is one.
    public var bool: Bool? { if case .bool(let v) = self { return v }; return nil }
    /// The value as a signed integer, if it is an integer that fits.
    public var int: Int64? {
        switch self {
        case .int(let v): return v
        case .uint64(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        default: return nil
        }
    }
    /// The value as a double, if it is a number.
    public var double: Double? {
        switch self {
        case .double(let v): return v
        case .int(let v): return Double(v)
        case .uint64(let v): return Double(v)
        default: return nil
        }
    }
    /// The value as a string, if it is one.
    public var string: String? { if case .string(let v) = self { return v }; return nil }
}
