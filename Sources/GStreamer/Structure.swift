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
    public func set(_ field: String, _ value: String) { set(field, type: cgst_type_string()) { g_value_set_string($0, value) } }

    /// Sets an integer field (`gint64`).
    public func set(_ field: String, _ value: Int64) { set(field, type: cgst_type_int64()) { g_value_set_int64($0, gint64(value)) } }

    /// Sets a floating-point field.
    public func set(_ field: String, _ value: Double) { set(field, type: cgst_type_double()) { g_value_set_double($0, value) } }

    /// Sets a boolean field.
    public func set(_ field: String, _ value: Bool) { set(field, type: cgst_type_boolean()) { g_value_set_boolean($0, value ? 1 : 0) } }

    private func set(_ field: String, type: GType, _ fill: (UnsafeMutablePointer<GValue>) -> Void) {
        let gvalue = OwnedValue(type: type)
        fill(&gvalue.value)
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
