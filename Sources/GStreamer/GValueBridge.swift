import CGStreamer

/// A GValue initialised for one property's type, unset when dropped.
final class OwnedValue {
    var value = GValue()

    init(type: GType) { g_value_init(&value, type) }
    deinit { g_value_unset(&value) }
}

/// The one bridge between Swift values and GValues: `PropertyValue`s stored into a property's
/// GValue (setters and the factory), GValues read back as `StructureValue`s (structures, messages).
enum GValueBridge {
    /// Fills `target` (initialised to the spec's value type) from `value`; throws with a readable reason.
    static func store(_ value: PropertyValue, into target: inout GValue, spec: UnsafeMutablePointer<GParamSpec>, owner: String) throws(GStreamerError) {
        let name = String(cString: spec.pointee.name)
        let type = spec.pointee.value_type
        let fundamental = cgst_type_fundamental(type)
        func invalid(_ reason: String) -> GStreamerError { .invalidPropertyValue(object: owner, property: name, reason: reason) }

        switch value {
        case .bool(let flag):
            guard fundamental == cgst_type_boolean() else { throw invalid("it takes \(typeName(type)), not a boolean") }
            g_value_set_boolean(&target, flag ? 1 : 0)
        case .int(let number):
            try storeInteger(number: Double(number), exact: number, unsignedExact: number >= 0 ? UInt64(number) : nil, into: &target, fundamental: fundamental, type: type, invalid: invalid)
        case .uint64(let number):
            try storeInteger(number: Double(number), exact: number <= UInt64(Int64.max) ? Int64(number) : nil, unsignedExact: number, into: &target, fundamental: fundamental, type: type, invalid: invalid)
        case .double(let number):
            if fundamental == cgst_type_double() {
                g_value_set_double(&target, number)
            } else if fundamental == cgst_type_float() {
                g_value_set_float(&target, Float(number))
            } else {
                throw invalid("it takes \(typeName(type)), not a floating-point number")
            }
        case .string(let text):
            if fundamental == cgst_type_string() {
                g_value_set_string(&target, text)
            } else if fundamental == cgst_type_enum() {
                try storeEnum(text, into: &target, type: type, invalid: invalid)
            } else if fundamental == cgst_type_boolean(), let flag = ["true": true, "false": false, "1": true, "0": false][text.lowercased()] {
                g_value_set_boolean(&target, flag ? 1 : 0)
            } else if gst_value_deserialize(&target, text) == 0 {
                throw invalid("'\(text)' is not a valid \(typeName(type))")
            }
        case .enumNick(let nick):
            guard fundamental == cgst_type_enum() else { throw invalid("it takes \(typeName(type)), not an enum") }
            try storeEnum(nick, into: &target, type: type, invalid: invalid)
        case .caps(let caps):
            guard type == gst_caps_get_type() else { throw invalid("it takes \(typeName(type)), not caps") }
            gst_value_set_caps(&target, caps.gstCaps)
        case .object(let object):
            guard fundamental == cgst_type_object() else { throw invalid("it takes \(typeName(type)), not an object") }
            if let object {
                guard g_type_is_a(cgst_object_type(object.gstObject), type) != 0 else {
                    throw invalid("it takes a \(typeName(type)), not a \(object.typeName)")
                }
                g_value_set_object(&target, object.rawPointer)
            } else {
                g_value_set_object(&target, nil)
            }
        }
        // Range check: g_param_value_validate clamps and returns TRUE when it had to.
        let copy = OwnedValue(type: type)
        g_value_copy(&target, &copy.value)
        if g_param_value_validate(spec, &copy.value) != 0 {
            throw invalid("the value is out of the property's range")
        }
    }

    private static func storeInteger(number: Double, exact: Int64?, unsignedExact: UInt64?, into target: inout GValue, fundamental: GType, type: GType, invalid: (String) -> GStreamerError) throws(GStreamerError) {
        func signed(_ range: ClosedRange<Int64>) throws(GStreamerError) -> Int64 {
            guard let exact, range.contains(exact) else { throw invalid("\(unsignedExact.map(String.init) ?? exact.map(String.init) ?? "?") does not fit \(typeName(type))") }
            return exact
        }
        func unsigned(_ limit: UInt64) throws(GStreamerError) -> UInt64 {
            guard let unsignedExact, unsignedExact <= limit else { throw invalid("\(exact.map(String.init) ?? "?") does not fit \(typeName(type))") }
            return unsignedExact
        }
        switch fundamental {
        case cgst_type_int(): g_value_set_int(&target, gint(try signed(Int64(Int32.min)...Int64(Int32.max))))
        case cgst_type_uint(): g_value_set_uint(&target, guint(try unsigned(UInt64(UInt32.max))))
        case cgst_type_long(): g_value_set_long(&target, glong(try signed(Int64(Int.min)...Int64(Int.max))))
        case cgst_type_ulong(): g_value_set_ulong(&target, gulong(try unsigned(UInt64(UInt.max))))
        case cgst_type_int64(): g_value_set_int64(&target, gint64(try signed(Int64.min...Int64.max)))
        case cgst_type_uint64(): g_value_set_uint64(&target, guint64(try unsigned(UInt64.max)))
        case cgst_type_double(): g_value_set_double(&target, number)
        case cgst_type_float(): g_value_set_float(&target, Float(number))
        case cgst_type_enum(): g_value_set_enum(&target, gint(try signed(Int64(Int32.min)...Int64(Int32.max))))
        default: throw invalid("it takes \(typeName(type)), not an integer")
        }
    }

    private static func storeEnum(_ text: String, into target: inout GValue, type: GType, invalid: (String) -> GStreamerError) throws(GStreamerError) {
        guard let classPointer = g_type_class_ref(type) else { throw invalid("\(typeName(type)) has no values") }
        defer { g_type_class_unref(classPointer) }
        let enumClass = classPointer.assumingMemoryBound(to: GEnumClass.self)
        guard let entry = g_enum_get_value_by_nick(enumClass, text) ?? g_enum_get_value_by_name(enumClass, text) else {
            throw invalid("'\(text)' is not one of \(enumNicks(enumClass).joined(separator: ", "))")
        }
        g_value_set_enum(&target, entry.pointee.value)
    }

    /// A GValue as a `StructureValue`: numbers, strings, lists, arrays and nested structures as
    /// themselves, anything else serialised by GStreamer.
    static func read(_ value: UnsafePointer<GValue>) -> StructureValue {
        let type = value.pointee.g_type
        let fundamental = cgst_type_fundamental(type)
        switch fundamental {
        case cgst_type_boolean(): return .bool(g_value_get_boolean(value) != 0)
        case cgst_type_int(): return .int(Int64(g_value_get_int(value)))
        case cgst_type_uint(): return .int(Int64(g_value_get_uint(value)))
        case cgst_type_long(): return .int(Int64(g_value_get_long(value)))
        case cgst_type_ulong(): return .uint64(UInt64(g_value_get_ulong(value)))
        case cgst_type_int64(): return .int(Int64(g_value_get_int64(value)))
        case cgst_type_uint64(): return .uint64(UInt64(g_value_get_uint64(value)))
        case cgst_type_float(): return .double(Double(g_value_get_float(value)))
        case cgst_type_double(): return .double(g_value_get_double(value))
        case cgst_type_string(): return .string(g_value_get_string(value).map { String(cString: $0) } ?? "")
        case cgst_type_enum(): return .int(Int64(g_value_get_enum(value)))
        default:
            if type == cgst_type_value_array() {
                let count = cgst_value_array_length(value)
                return .list((0..<count).compactMap { cgst_value_array_nth(value, $0).map(read) })
            } else if type == gst_value_list_get_type() || type == gst_value_array_get_type() {
                let isList = type == gst_value_list_get_type()
                let count = isList ? gst_value_list_get_size(value) : gst_value_array_get_size(value)
                return .list((0..<count).compactMap { index in
                    (isList ? gst_value_list_get_value(value, index) : gst_value_array_get_value(value, index)).map(read)
                })
            } else if type == gst_structure_get_type(), let structure = gst_value_get_structure(value) {
                return .structure(Structure(copying: structure).description)
            } else {
                let text = gst_value_serialize(value)
                defer { g_free(text) }
                return .other(type: typeName(type), text: text.map { String(cString: $0) } ?? "")
            }
        }
    }

    /// The nicks of an enum class, in declaration order.
    static func enumNicks(_ enumClass: UnsafeMutablePointer<GEnumClass>) -> [String] {
        (0..<Int(enumClass.pointee.n_values)).compactMap { index in
            enumClass.pointee.values[index].value_nick.map { String(cString: $0) }
        }
    }

    /// A GType's name, e.g. "gdouble".
    static func typeName(_ type: GType) -> String { String(cString: g_type_name(type)) }
}
