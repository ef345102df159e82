import CGStreamer

/// A container of elements (`GstBin`).
public class Bin: Element {
    override class var gType: GType? { gst_bin_get_type() }

    var gstBin: UnsafeMutablePointer<GstBin> { pointer(as: GstBin.self) }

    /// A new, empty bin (wraps `gst_bin_new`).
    public convenience init(name: String? = nil) throws(GStreamerError) {
        try GStreamer.initialize()
        // gst_bin_new: transfer floating.
        self.init(retaining: UnsafeMutableRawPointer(gst_bin_new(name)).assumingMemoryBound(to: GstObject.self))
    }

    /// Adds elements (wraps `gst_bin_add`); the bin takes its own reference.
    public func add(_ elements: Element...) throws(GStreamerError) { try add(elements) }

    /// Adds elements (wraps `gst_bin_add`).
    public func add(_ elements: [Element]) throws(GStreamerError) {
        for element in elements where gst_bin_add(gstBin, element.gstElement) == 0 {
            throw .addFailed(element: element.name, bin: name)
        }
    }

    /// Adds `chain` and links each element to the next, in order.
    public func addLinked(_ chain: [Element]) throws(GStreamerError) {
        try add(chain)
        try Element.link(chain)
    }

    /// Removes an element (wraps `gst_bin_remove`); set it to NULL first if it was running.
    public func remove(_ element: Element) throws(GStreamerError) {
        guard gst_bin_remove(gstBin, element.gstElement) != 0 else { throw .removeFailed(element: element.name, bin: name) }
    }

    /// The element called `name` anywhere inside the bin (wraps `gst_bin_get_by_name`).
    public func element(named name: String) -> Element? {
        guard let element = gst_bin_get_by_name(gstBin, name) else { return nil }
        // gst_bin_get_by_name: transfer full.
        return Element(adopting: UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self))
    }

    /// The element called `name`, as wrapper type `type` (e.g. `AppSource`); throws when absent or of another type.
    public func element<T: Element>(named name: String, as type: T.Type) throws(GStreamerError) -> T {
        guard let element = gst_bin_get_by_name(gstBin, name) else {
            throw .failed("'\(self.name)' has no element called '\(name)'.")
        }
        return try Object.cast(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self), adopting: true, as: T.self)
    }

    /// The direct children, in the bin's order.
    public var children: [Element] {
        var result: [Element] = []
        GST_OBJECT_LOCK_HELD(gstObject) {
            var node = gstBin.pointee.children
            while let current = node {
                if let data = current.pointee.data {
                    result.append(Element(retaining: data.assumingMemoryBound(to: GstObject.self)))
                }
                node = current.pointee.next
            }
        }
        return result
    }

    /// Every element inside, bins inside bins included (an autoplugging bin's elements), parents
    /// before their children.
    public var descendants: [Element] {
        children.flatMap { child -> [Element] in
            guard g_type_is_a(cgst_object_type(child.gstObject), gst_bin_get_type()) != 0 else { return [child] }
            return [child] + Bin(retaining: child.gstObject).descendants
        }
    }

    /// Recomputes and redistributes the latency; call on every LATENCY message (wraps `gst_bin_recalculate_latency`).
    ///
    /// The echo probe stays inert after being (re)inserted until this runs.
    @discardableResult
    public func recalculateLatency() -> Bool { gst_bin_recalculate_latency(gstBin) != 0 }
}

// Thread-safe like every GstObject wrapper (see Object).
extension Bin: @unchecked Sendable {}
