import CGStreamer

/// A reference to a `GstObject` (elements, pads, buses, clocks, devices, control sources …).
///
/// Owns exactly one reference, dropped in `deinit`. Created through one of two doors named for
/// the C transfer rule: `init(adopting:)` for transfer-full returns, `init(retaining:)` for
/// transfer-none or floating returns.
public class Object: CustomStringConvertible {
    /// The object; valid for the wrapper's lifetime.
    let gstObject: UnsafeMutablePointer<GstObject>

    /// Takes over a reference the caller owns (transfer full). A floating reference is sunk,
    /// which converts it into the owned one without changing the count.
    required init(adopting pointer: UnsafeMutablePointer<GstObject>) {
        if g_object_is_floating(pointer) != 0 { gst_object_ref_sink(pointer) }
        gstObject = pointer
    }

    /// Takes a new reference (transfer none), or sinks a floating one (transfer floating).
    required init(retaining pointer: UnsafeMutablePointer<GstObject>) {
        gst_object_ref_sink(pointer)
        gstObject = pointer
    }

    deinit { gst_object_unref(gstObject) }

    /// The object's name (wraps `gst_object_get_name`).
    public var name: String {
        guard let name = gst_object_get_name(gstObject) else { return "" }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// The object's path in its hierarchy, e.g. "/GstPipeline:engine/GstVolume:master-volume" (wraps `gst_object_get_path_string`).
    public var path: String {
        guard let path = gst_object_get_path_string(gstObject) else { return name }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// The GType name of the object, e.g. "GstAudioMixer".
    public var typeName: String { String(cString: g_type_name(cgst_object_type(gstObject))) }

    /// True when both wrappers refer to the same GStreamer object.
    public func isSame(as other: Object) -> Bool { gstObject == other.gstObject }

    /// The object's current reference count; for leak diagnostics only.
    public var referenceCount: Int { Int(gstObject.pointee.object.ref_count) }

    public var description: String { "\(typeName)(\(name))" }

    /// Wraps `pointer` as an instance of `type` after checking its GType; throws `wrongType` otherwise.
    static func cast<T: Object>(_ pointer: UnsafeMutablePointer<GstObject>, adopting: Bool, as type: T.Type) throws(GStreamerError) -> T {
        let wrapper = adopting ? T(adopting: pointer) : T(retaining: pointer)
        if let expected = T.gType, g_type_is_a(cgst_object_type(pointer), expected) == 0 {
            throw .wrongType(object: wrapper.name, expected: String(cString: g_type_name(expected)), actual: wrapper.typeName)
        }
        return wrapper
    }

    /// The GType a wrapper class stands for; nil means any GstObject.
    class var gType: GType? { nil }

    /// The object as a raw `gpointer` for C calls.
    var rawPointer: gpointer { UnsafeMutableRawPointer(gstObject) }

    /// The object cast to another GStreamer struct type.
    func pointer<T>(as type: T.Type) -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer(gstObject).assumingMemoryBound(to: T.self)
    }
}

// GstObject's reference counting, properties and locking are thread-safe, and a wrapper holds
// one immutable pointer, so wrappers may cross threads.
extension Object: @unchecked Sendable {}
