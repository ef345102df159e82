import CGStreamer

/// A factory that makes elements of one kind (`GstElementFactory`).
public final class ElementFactory: Object {
    override class var gType: GType? { gst_element_factory_get_type() }

    /// Finds the factory for `name`, e.g. "webrtcdsp"; throws `missingElement` with the Debian package to install.
    public static func find(_ name: String) throws(GStreamerError) -> ElementFactory {
        try GStreamer.initialize()
        guard let factory = gst_element_factory_find(name) else {
            throw .missingElement(name, package: DebianPackage.providing(element: name))
        }
        // gst_element_factory_find: transfer full.
        return ElementFactory(adopting: UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self))
    }

    /// True when an element of this kind can be made here.
    public static func isAvailable(_ name: String) -> Bool { (try? find(name)) != nil }

    /// True when some installed source element reads `scheme://` URIs (wraps `gst_uri_protocol_is_supported`).
    public static func hasSource(forScheme scheme: String) -> Bool {
        guard (try? GStreamer.initialize()) != nil else { return false }
        return gst_uri_protocol_is_supported(GST_URI_SRC, scheme) != 0
    }

    /// Makes an element, setting `properties` in order: the one way to make an element. Construct-only
    /// properties such as `audiomixer force-live` are passed at construction, and a wrong name,
    /// type or range is an error here (wraps `gst_element_factory_make_with_properties`).
    public static func make(_ factoryName: String, name: String? = nil, properties: ElementProperties = [:]) throws(GStreamerError) -> Element {
        try make(factoryName, as: Element.self, name: name, properties: properties)
    }

    /// Makes an element as the wrapper type `type` (`AppSource.make`, `AppSink.make`), checking its kind.
    static func make<T: Element>(_ factoryName: String, as type: T.Type, name: String?, properties: ElementProperties = [:]) throws(GStreamerError) -> T {
        let element = try find(factoryName).createRaw(name: name, properties: properties.entries)
        // gst_element_factory_make_with_properties: transfer floating → retaining sinks it.
        return try Object.cast(element, adopting: false, as: T.self)
    }

    /// The factory's name, e.g. "audiomixer".
    public var factoryName: String { name }

    /// The element class, e.g. "Generic/Audio" (wraps `gst_element_factory_get_metadata`).
    public var klass: String { metadata(GST_ELEMENT_METADATA_KLASS) }
    /// The long name, e.g. "AudioMixer".
    public var longName: String { metadata(GST_ELEMENT_METADATA_LONGNAME) }

    /// The names of the element's properties (beyond GObject's own).
    public var propertyNames: [String] {
        guard let elementClass = loadedElementClass() else { return [] }
        defer { g_type_class_unref(elementClass) }
        var count: guint = 0
        guard let specs = g_object_class_list_properties(elementClass.assumingMemoryBound(to: GObjectClass.self), &count) else { return [] }
        defer { g_free(specs) }
        return (0..<Int(count)).compactMap { specs[$0].map { String(cString: $0.pointee.name) } }
    }

    private func metadata(_ key: String) -> String {
        gst_element_factory_get_metadata(OpaquePointer(rawPointer), key).map { String(cString: $0) } ?? ""
    }

    /// The element class with the plugin loaded; the caller unrefs it.
    private func loadedElementClass() -> gpointer? {
        guard let loaded = gst_plugin_feature_load(OpaquePointer(rawPointer)) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(loaded)) }
        let type = gst_element_factory_get_element_type(loaded)
        guard type != 0 else { return nil }
        return g_type_class_ref(type)
    }

    /// Creates the element (floating reference) with all properties applied at construction.
    func createRaw(name: String?, properties: [(String, PropertyValue)]) throws(GStreamerError) -> UnsafeMutablePointer<GstObject> {
        guard let elementClass = loadedElementClass() else { throw .elementCreationFailed(factoryName) }
        defer { g_type_class_unref(elementClass) }
        let objectClass = elementClass.assumingMemoryBound(to: GObjectClass.self)

        // Values are converted against the element class's specs, so a wrong type or range is
        // an error here rather than a GLib warning at runtime.
        var entries: [(name: String, value: PropertyValue)] = properties.map { (name: $0.0, value: $0.1) }
        if let name { entries.insert(("name", .string(name)), at: 0) }
        var values = [GValue](repeating: GValue(), count: entries.count)
        defer { for index in values.indices { g_value_unset(&values[index]) } }
        for (index, entry) in entries.enumerated() {
            guard let spec = g_object_class_find_property(objectClass, entry.name) else {
                throw .noSuchProperty(object: name ?? factoryName, property: entry.name)
            }
            g_value_init(&values[index], spec.pointee.value_type)
            try GValueBridge.store(entry.value, into: &values[index], spec: spec, owner: name ?? factoryName)
        }
        let names = entries.map { strdup($0.name) }
        defer { names.forEach { free($0) } }
        var cNames = names.map { UnsafePointer<CChar>($0) }
        let element = cNames.withUnsafeMutableBufferPointer { namesBuffer in
            values.withUnsafeBufferPointer { valuesBuffer in
                gst_element_factory_make_with_properties(factoryName, guint(entries.count), namesBuffer.baseAddress, valuesBuffer.baseAddress)
            }
        }
        guard let element else { throw .elementCreationFailed(factoryName) }
        return UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)
    }
}

/// Properties for `ElementFactory.make`, applied in order: a dictionary literal
/// (`["caps": .caps(caps), "sync": false]`), or built up when some depend on the caller.
public struct ElementProperties: Sendable, ExpressibleByDictionaryLiteral {
    /// The properties in the order they will be applied.
    public private(set) var entries: [(String, PropertyValue)]

    /// The properties of a literal, in its order.
    public init(dictionaryLiteral elements: (String, PropertyValue)...) { entries = elements }

    /// Adds a property after those already there.
    public mutating func append(_ name: String, _ value: PropertyValue) { entries.append((name, value)) }
}

// Thread-safe like every GstObject wrapper (see Object).
extension ElementFactory: @unchecked Sendable {}
