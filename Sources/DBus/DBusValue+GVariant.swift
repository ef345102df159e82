import CGIO

extension DBusValue {
    /// A new floating GVariant (transfer floating: the receiver sinks it); wraps `g_variant_new_*`.
    func makeVariant() -> OpaquePointer {
        switch self {
        case .boolean(let value): return g_variant_new_boolean(value ? 1 : 0)
        case .int32(let value): return g_variant_new_int32(value)
        case .uint32(let value): return g_variant_new_uint32(value)
        case .int64(let value): return g_variant_new_int64(gint64(value))
        case .double(let value): return g_variant_new_double(value)
        case .string(let value): return g_variant_new_string(value)
        case .objectPath(let value):
            // An invalid path would abort in g_variant_new_object_path: send the root instead.
            return g_variant_new_object_path(g_variant_is_object_path(value) != 0 ? value : "/")
        case .strings(let values):
            return Self.array(of: "s", values.map { g_variant_new_string($0) })
        case .dictionary(let entries):
            return Self.array(of: "{sv}", entries.map { g_variant_new_dict_entry(g_variant_new_string($0.0), g_variant_new_variant($0.1.makeVariant())) })
        case .variant(let inner):
            return g_variant_new_variant(inner.makeVariant())
        case .tuple(let values):
            let children: [OpaquePointer?] = values.map { $0.makeVariant() }
            return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        case .unsupported:
            return g_variant_new_tuple(nil, 0)
        }
    }

    /// An array of `children` (floating, consumed) of element type `signature`; wraps `g_variant_new_array`.
    private static func array(of signature: String, _ children: [OpaquePointer]) -> OpaquePointer {
        let type = g_variant_type_new(signature)
        defer { g_variant_type_free(type) }
        let pointers: [OpaquePointer?] = children
        return pointers.withUnsafeBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
    }

    /// Reads a GVariant (transfer none); wraps `g_variant_classify` and the `g_variant_get_*` family.
    init(reading variant: OpaquePointer) {
        let signature = String(cString: g_variant_get_type_string(variant))
        switch g_variant_classify(variant) {
        case G_VARIANT_CLASS_BOOLEAN: self = .boolean(g_variant_get_boolean(variant) != 0)
        case G_VARIANT_CLASS_INT32: self = .int32(g_variant_get_int32(variant))
        case G_VARIANT_CLASS_UINT32: self = .uint32(g_variant_get_uint32(variant))
        case G_VARIANT_CLASS_INT64: self = .int64(Int64(g_variant_get_int64(variant)))
        case G_VARIANT_CLASS_DOUBLE: self = .double(g_variant_get_double(variant))
        case G_VARIANT_CLASS_STRING: self = .string(String(cString: g_variant_get_string(variant, nil)))
        case G_VARIANT_CLASS_OBJECT_PATH: self = .objectPath(String(cString: g_variant_get_string(variant, nil)))
        case G_VARIANT_CLASS_VARIANT:
            let inner = g_variant_get_variant(variant)   // transfer full
            defer { g_variant_unref(inner) }
            self = inner.map { .variant(DBusValue(reading: $0)) } ?? .unsupported(signature: signature)
        case G_VARIANT_CLASS_TUPLE:
            self = .tuple(Self.mapChildren(of: variant) { DBusValue(reading: $0) })
        case G_VARIANT_CLASS_ARRAY where signature == "as":
            self = .strings(Self.mapChildren(of: variant) { String(cString: g_variant_get_string($0, nil)) })
        case G_VARIANT_CLASS_ARRAY where signature == "a{sv}":
            self = .dictionary(Self.mapChildren(of: variant) { entry -> (String, DBusValue)? in
                guard case .tuple(let pair) = DBusValue(reading: entry), pair.count == 2, case .string(let key) = pair[0] else { return nil }
                if case .variant(let value) = pair[1] { return (key, value) }
                return (key, pair[1])
            }.compactMap { $0 })
        case G_VARIANT_CLASS_DICT_ENTRY:
            self = .tuple(Self.mapChildren(of: variant) { DBusValue(reading: $0) })
        default:
            self = .unsupported(signature: signature)
        }
    }

    /// `transform` applied to each child of a container, in order; wraps `g_variant_get_child_value`.
    private static func mapChildren<T>(of variant: OpaquePointer, _ transform: (OpaquePointer) -> T) -> [T] {
        (0..<g_variant_n_children(variant)).compactMap { index in
            guard let child = g_variant_get_child_value(variant, index) else { return nil }   // transfer full
            defer { g_variant_unref(child) }
            return transform(child)
        }
    }
}
