import CGStreamer

extension Element {
    /// The last buffer this sink rendered, with its caps (basesink's `last-sample`, kept while
    /// `enable-last-sample` is on, the default); nil before the first buffer or for an element
    /// that has no such property.
    public var lastSample: Sample? {
        guard hasProperty("last-sample") else { return nil }
        var value = GValue()
        g_value_init(&value, gst_sample_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(rawPointer.assumingMemoryBound(to: GObject.self), "last-sample", &value)
        // g_value_dup_boxed gives us our own reference (transfer full).
        guard let boxed = g_value_dup_boxed(&value) else { return nil }
        return Sample(adopting: OpaquePointer(boxed))
    }
}

extension Sample {
    /// This video frame converted to `caps`, e.g. `image/png` (wraps `gst_video_convert_sample`,
    /// which runs a small converter pipeline and waits up to `timeout`).
    public func converted(to caps: Caps, timeout: ClockTime = .seconds(5)) throws(GStreamerError) -> Sample {
        var error: UnsafeMutablePointer<GError>?
        guard let converted = gst_video_convert_sample(gstSample, caps.gstCaps, timeout.gst, &error) else {
            let reason = GLibError(consuming: error)?.message ?? "no converter answered in \(timeout)"
            throw .failed("the video frame could not be converted to \(caps): \(reason)")
        }
        return Sample(adopting: converted)
    }
}
