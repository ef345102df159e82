import CGStreamer

/// A named set of typed fields (`GstStructure`), owned as a private copy.
///
/// Element messages carry one: the `level` element's has `rms`, `peak` and `decay` as lists of
/// dB values per channel, readable with `doubles(_:)`.
public final class Structure: CustomStringConvertible {
    let gstStructure: UnsafeMutablePointer<GstStructure>

    /// Copies a structure owned by someone else (a message, caps, a device).
    init(copying structure: UnsafePointer<GstStructure>) { gstStructure = gst_structure_copy(structure) }

    /// Takes over a structure the caller owns.
    init(adopting structure: UnsafeMutablePointer<GstStructure>) { gstStructure = structure }

    deinit { gst_structure_free(gstStructure) }

    /// Parses "name, field=(type)value, …" (wraps `gst_structure_from_string`).
    public convenience init(_ text: String) throws(GStreamerError) {
        try GStreamer.initialize()
        guard let structure = gst_structure_from_string(text, nil) else { throw .invalidCaps(text) }
        self.init(adopting: structure)
    }

    /// An empty structure called `name` (wraps `gst_structure_new_empty`).
    public convenience init(name: String) throws(GStreamerError) {
        try GStreamer.initialize()
        self.init(adopting: gst_structure_new_empty(name))
    }

    /// The structure's name, e.g. "level".
    public var name: String { String(cString: gst_structure_get_name(gstStructure)) }

    /// The field names in order.
    public var fieldNames: [String] {
        (0..<Int(gst_structure_n_fields(gstStructure))).compactMap { index in
            gst_structure_nth_field_name(gstStructure, guint(index)).map { String(cString: $0) }
        }
    }

    /// True when the field exists.
    public func has(_ field: String) -> Bool { gst_structure_has_field(gstStructure, field) != 0 }

    /// The field as a typed value; nil when absent.
    public subscript(field: String) -> StructureValue? {
        guard let value = gst_structure_get_value(gstStructure, field) else { return nil }
        return StructureValue(value)
    }

    /// A boolean field.
    public func bool(_ field: String) -> Bool? { self[field]?.bool }
    /// An integer field of any width or an enum.
    public func int(_ field: String) -> Int64? { self[field]?.int }
    /// A floating-point field (integers are converted).
    public func double(_ field: String) -> Double? { self[field]?.double }
    /// A string field.
    public func string(_ field: String) -> String? { self[field]?.string }
    /// A `guint64` nanosecond field as a time (nil for NONE or absent).
    public func clockTime(_ field: String) -> ClockTime? {
        guard case .uint64(let raw)? = self[field] else { return nil }
        return ClockTime(raw: GstClockTime(raw))
    }
    /// A list or array field of numbers, e.g. the `level` element's `rms` (dB per channel).
    public func doubles(_ field: String) -> [Double]? {
        guard case .list(let values)? = self[field] else { return nil }
        let numbers = values.compactMap(\.double)
        return numbers.count == values.count ? numbers : nil
    }

    /// Sets a string field.
    public func set(_ field: String, _ value: String) {
        let gvalue = OwnedValue(type: cgst_type_string())
        g_value_set_string(&gvalue.value, value)
        gst_structure_set_value(gstStructure, field, &gvalue.value)
    }

    /// Sets an integer field (`gint64`).
    public func set(_ field: String, _ value: Int64) {
        let gvalue = OwnedValue(type: cgst_type_int64())
        g_value_set_int64(&gvalue.value, gint64(value))
        gst_structure_set_value(gstStructure, field, &gvalue.value)
    }

    /// Sets a floating-point field.
    public func set(_ field: String, _ value: Double) {
        let gvalue = OwnedValue(type: cgst_type_double())
        g_value_set_double(&gvalue.value, value)
        gst_structure_set_value(gstStructure, field, &gvalue.value)
    }

    /// Sets a boolean field.
    public func set(_ field: String, _ value: Bool) {
        let gvalue = OwnedValue(type: cgst_type_boolean())
        g_value_set_boolean(&gvalue.value, value ? 1 : 0)
        gst_structure_set_value(gstStructure, field, &gvalue.value)
    }

    /// The structure as text (wraps `gst_structure_to_string`).
    public var description: String {
        guard let text = gst_structure_to_string(gstStructure) else { return name }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// A copy for handing to C (transfer full).
    func copyForTransfer() -> UnsafeMutablePointer<GstStructure> { gst_structure_copy(gstStructure) }
}

// The wrapper owns a private copy; reads are thread-safe, writes are the owner's business as
// for any reference type.
extension Structure: @unchecked Sendable {}

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

    init(_ value: UnsafePointer<GValue>) {
        let type = value.pointee.g_type
        let fundamental = cgst_type_fundamental(type)
        switch fundamental {
        case cgst_type_boolean(): self = .bool(g_value_get_boolean(value) != 0)
        case cgst_type_int(): self = .int(Int64(g_value_get_int(value)))
        case cgst_type_uint(): self = .int(Int64(g_value_get_uint(value)))
        case cgst_type_long(): self = .int(Int64(g_value_get_long(value)))
        case cgst_type_ulong(): self = .uint64(UInt64(g_value_get_ulong(value)))
        case cgst_type_int64(): self = .int(Int64(g_value_get_int64(value)))
        case cgst_type_uint64(): self = .uint64(UInt64(g_value_get_uint64(value)))
        case cgst_type_float(): self = .double(Double(g_value_get_float(value)))
        case cgst_type_double(): self = .double(g_value_get_double(value))
        case cgst_type_string(): self = .string(g_value_get_string(value).map { String(cString: $0) } ?? "")
        case cgst_type_enum(): self = .int(Int64(g_value_get_enum(value)))
        default:
            if type == cgst_type_value_array() {
                let count = cgst_value_array_length(value)
                self = .list((0..<count).compactMap { cgst_value_array_nth(value, $0).map(StructureValue.init) })
            } else if type == gst_value_list_get_type() || type == gst_value_array_get_type() {
                let isList = type == gst_value_list_get_type()
                let count = isList ? gst_value_list_get_size(value) : gst_value_array_get_size(value)
                self = .list((0..<count).compactMap { index in
                    (isList ? gst_value_list_get_value(value, index) : gst_value_array_get_value(value, index)).map(StructureValue.init)
                })
            } else if type == gst_structure_get_type(), let structure = gst_value_get_structure(value) {
                self = .structure(Structure(copying: structure).description)
            } else {
                let text = gst_value_serialize(value)
                defer { g_free(text) }
                self = .other(type: PropertyConversion.typeName(type), text: text.map { String(cString: $0) } ?? "")
            }
        }
    }

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
