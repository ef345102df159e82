import CGStreamer

extension Object {
    /// Sets a property, converting to its type and checking its range (wraps `g_object_set_property`).
    ///
    /// Throws `noSuchProperty`, `invalidPropertyValue` or `constructOnlyProperty` (those must go to
    /// `ElementFactory.make(_:name:properties:)`).
    public func set(_ property: String, _ value: PropertyValue) throws(GStreamerError) {
        let spec = try writableSpec(property)
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        try GValueBridge.store(value, into: &gvalue.value, spec: spec, owner: name)
        g_object_set_property(g_object, property, &gvalue.value)
    }

    /// Sets a boolean property.
    public func set(_ property: String, _ value: Bool) throws(GStreamerError) { try set(property, .bool(value)) }
    /// Sets an integer property of any width.
    public func set(_ property: String, _ value: Int) throws(GStreamerError) { try set(property, .int(Int64(value))) }
    /// Sets a `gdouble` or `gfloat` property.
    public func set(_ property: String, _ value: Double) throws(GStreamerError) { try set(property, .double(value)) }
    /// Sets a string property, an enum by nick, or any property GStreamer can parse from text.
    public func set(_ property: String, _ value: String) throws(GStreamerError) { try set(property, .string(value)) }
    /// Sets a caps property.
    public func set(_ property: String, _ value: Caps) throws(GStreamerError) { try set(property, .caps(value)) }

    /// Reads a boolean property.
    public func bool(_ property: String) throws(GStreamerError) -> Bool {
        try read(property, as: cgst_type_boolean()) { g_value_get_boolean($0) != 0 }
    }

    /// Reads an integer property of any integer or enum type.
    public func int(_ property: String) throws(GStreamerError) -> Int64 {
        try read(property, as: cgst_type_int64()) { Int64(g_value_get_int64($0)) }
    }

    /// Reads a `GstStructure` property (e.g. rtpjitterbuffer's `stats`) as a private copy; nil when unset.
    public func structure(_ property: String) throws(GStreamerError) -> Structure? {
        let spec = try readableSpec(property)
        guard spec.pointee.value_type == gst_structure_get_type() else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it is a \(GValueBridge.typeName(spec.pointee.value_type)), not a GstStructure")
        }
        let value = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &value.value)
        guard let boxed = g_value_get_boxed(&value.value) else { return nil }
        return Structure(copying: boxed.assumingMemoryBound(to: GstStructure.self))
    }

    /// Reads an unsigned 64-bit property (times, byte counts).
    public func uint64(_ property: String) throws(GStreamerError) -> UInt64 {
        try read(property, as: cgst_type_uint64()) { UInt64(g_value_get_uint64($0)) }
    }

    /// Reads a floating-point property.
    public func double(_ property: String) throws(GStreamerError) -> Double {
        try read(property, as: cgst_type_double()) { g_value_get_double($0) }
    }

    /// Reads a string property (nil when unset), or any property as GStreamer serialises it.
    public func string(_ property: String) throws(GStreamerError) -> String? {
        let spec = try readableSpec(property)
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &gvalue.value)
        if cgst_type_fundamental(spec.pointee.value_type) == cgst_type_string() {
            return g_value_get_string(&gvalue.value).map { String(cString: $0) }
        }
        guard let text = gst_value_serialize(&gvalue.value) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Reads an enum property as its nick, e.g. "adaptive-digital".
    public func enumNick(_ property: String) throws(GStreamerError) -> String {
        let spec = try readableSpec(property)
        guard cgst_type_fundamental(spec.pointee.value_type) == cgst_type_enum() else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it is not an enum")
        }
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &gvalue.value)
        guard let classPointer = g_type_class_ref(spec.pointee.value_type) else { return "" }
        defer { g_type_class_unref(classPointer) }
        let entry = g_enum_get_value(classPointer.assumingMemoryBound(to: GEnumClass.self), g_value_get_enum(&gvalue.value))
        return entry?.pointee.value_nick.map { String(cString: $0) } ?? String(g_value_get_enum(&gvalue.value))
    }

    /// Reads a caps property.
    public func caps(_ property: String) throws(GStreamerError) -> Caps? {
        let spec = try readableSpec(property)
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &gvalue.value)
        // The value is checked, not the spec: dtlsdec's decoder-key is declared caps and holds a buffer.
        guard let caps = gst_value_get_caps(&gvalue.value), cgst_mini_object_type(caps) == gst_caps_get_type() else { return nil }
        return Caps(retaining: UnsafeMutablePointer(mutating: caps))
    }

    /// The bytes of a property that holds a `GstBuffer`, whatever type its spec declares (dtlsdec's
    /// `decoder-key` is declared `GstCaps`; wraps `g_object_get_property` + `gst_buffer_extract`);
    /// nil when it holds no buffer.
    public func bufferBytes(_ property: String) throws(GStreamerError) -> [UInt8]? {
        let spec = try readableSpec(property)
        guard g_type_is_a(spec.pointee.value_type, cgst_type_boxed()) != 0 else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it is a \(GValueBridge.typeName(spec.pointee.value_type)), not a boxed value")
        }
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &gvalue.value)
        guard let boxed = g_value_get_boxed(&gvalue.value), cgst_mini_object_type(boxed) == gst_buffer_get_type() else { return nil }
        let buffer = UnsafeMutablePointer(mutating: boxed.assumingMemoryBound(to: GstBuffer.self))
        let count = Int(gst_buffer_get_size(buffer))
        return [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            initialized = Int(gst_buffer_extract(buffer, 0, storage.baseAddress, gsize(count)))
        }
    }

    /// Reads an object property (nil when unset or not a GstObject).
    public func object(_ property: String) throws(GStreamerError) -> Object? {
        let spec = try readableSpec(property)
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &gvalue.value)
        guard let pointer = g_value_get_object(&gvalue.value),
              g_type_is_a(cgst_object_type(pointer), gst_object_get_type()) != 0 else { return nil }
        // A reference of our own, never a sink: the owner may still hold its object floating
        // (webrtcbin's ice-agent is), and sinking would take the owner's reference as ours.
        let object = pointer.assumingMemoryBound(to: GstObject.self)
        gst_object_ref(object)
        return Object(adopting: object)
    }

    /// Sets `property` to `source`'s `sourceProperty`, whatever its GType, without a Swift wrapper
    /// for the value (wraps `g_object_get_property` + `g_object_set_property`): e.g. a udpsink's
    /// `socket` from a udpsrc's `used-socket`, so both send and receive on one socket.
    public func set(_ property: String, from source: Object, property sourceProperty: String) throws(GStreamerError) {
        let target = try writableSpec(property)
        let origin = try source.readableSpec(sourceProperty)
        guard g_type_is_a(origin.pointee.value_type, target.pointee.value_type) != 0 else {
            throw .invalidPropertyValue(object: name, property: property,
                                        reason: "\(source.name)'s \(sourceProperty) is a \(GValueBridge.typeName(origin.pointee.value_type)), not a \(GValueBridge.typeName(target.pointee.value_type))")
        }
        let gvalue = OwnedValue(type: origin.pointee.value_type)
        g_object_get_property(source.g_object, sourceProperty, &gvalue.value)
        g_object_set_property(g_object, property, &gvalue.value)
    }

    /// Sets a `GstBuffer` property to a copy of `bytes`, e.g. srtpenc's `key` (wraps
    /// `gst_buffer_new_memdup` + `g_object_set_property`; the property keeps its own reference).
    public func set(_ property: String, bytes: [UInt8]) throws(GStreamerError) {
        let spec = try writableSpec(property)
        guard g_type_is_a(spec.pointee.value_type, gst_buffer_get_type()) != 0 else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it is a \(GValueBridge.typeName(spec.pointee.value_type)), not a buffer")
        }
        guard let buffer = bytes.withUnsafeBytes({ gst_buffer_new_memdup($0.baseAddress, gsize($0.count)) }) else {
            throw .invalidPropertyValue(object: name, property: property, reason: "no buffer could be made of \(bytes.count) bytes")
        }
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_value_take_boxed(&gvalue.value, buffer)   // transfer full: the value owns the buffer
        g_object_set_property(g_object, property, &gvalue.value)
    }

    /// Sets the boolean `property` of the plain GObject held in this object's `holder` property,
    /// e.g. webrtcbin's ice-agent's libnice `agent` (not a GstObject, so never wrapped here; wraps
    /// `g_object_get_property` + `g_object_set_property`).
    public func set(_ property: String, _ value: Bool, onObjectIn holder: String) throws(GStreamerError) {
        let spec = try readableSpec(holder)
        let held = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, holder, &held.value)
        guard cgst_type_fundamental(spec.pointee.value_type) == cgst_type_object(), let object = g_value_get_object(&held.value) else {
            throw .invalidPropertyValue(object: name, property: holder, reason: "it holds no object")
        }
        guard let target = cgst_object_find_property(object, property), target.pointee.value_type == cgst_type_boolean() else {
            throw .noSuchProperty(object: "\(name)'s \(holder)", property: property)
        }
        let gvalue = OwnedValue(type: cgst_type_boolean())
        g_value_set_boolean(&gvalue.value, value ? 1 : 0)
        g_object_set_property(object.assumingMemoryBound(to: GObject.self), property, &gvalue.value)
    }

    /// True when the object has a property of this name.
    public func hasProperty(_ property: String) -> Bool { cgst_object_find_property(rawPointer, property) != nil }

    /// True when the property is flagged deprecated (`G_PARAM_DEPRECATED` on its `GParamSpec`): the element
    /// still takes it, but it may no longer do anything.
    public func isDeprecated(_ property: String) throws(GStreamerError) -> Bool {
        try spec(property).pointee.flags.rawValue & G_PARAM_DEPRECATED.rawValue != 0
    }

    // MARK: - Internals

    var g_object: UnsafeMutablePointer<GObject> { pointer(as: GObject.self) }

    private func spec(_ property: String) throws(GStreamerError) -> UnsafeMutablePointer<GParamSpec> {
        guard let spec = cgst_object_find_property(rawPointer, property) else {
            throw .noSuchProperty(object: name, property: property)
        }
        return spec
    }

    private func writableSpec(_ property: String) throws(GStreamerError) -> UnsafeMutablePointer<GParamSpec> {
        let spec = try spec(property)
        if spec.pointee.flags.rawValue & G_PARAM_CONSTRUCT_ONLY.rawValue != 0 {
            throw .constructOnlyProperty(object: name, property: property)
        }
        guard spec.pointee.flags.rawValue & G_PARAM_WRITABLE.rawValue != 0 else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it is read-only")
        }
        return spec
    }

    fileprivate func readableSpec(_ property: String) throws(GStreamerError) -> UnsafeMutablePointer<GParamSpec> {
        let spec = try spec(property)
        guard spec.pointee.flags.rawValue & G_PARAM_READABLE.rawValue != 0 else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it is write-only")
        }
        return spec
    }

    /// Reads a property and transforms it to `type` (e.g. any integer to gint64).
    private func read<T>(_ property: String, as type: GType, _ extract: (UnsafeMutablePointer<GValue>) -> T) throws(GStreamerError) -> T {
        let spec = try readableSpec(property)
        let source = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(g_object, property, &source.value)
        let target = OwnedValue(type: type)
        guard g_value_transform(&source.value, &target.value) != 0 else {
            throw .invalidPropertyValue(object: name, property: property,
                                        reason: "it is a \(GValueBridge.typeName(spec.pointee.value_type)), not a \(GValueBridge.typeName(type))")
        }
        return extract(&target.value)
    }
}
