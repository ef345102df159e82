import CGStreamer

extension Element {
    /// For a live aggregator (audiomixer with `force-live`) that puts out silence before any input
    /// has a buffer: gives its output a TIME segment from 0 now, as its `start-time-selection`
    /// `zero` would, so that its first input's first buffer no longer selects the start time. Left
    /// to that buffer, the selection sets the output position back to 0 after the mixer has
    /// produced: the next buffer is stamped 0 and spans everything since (a jump back with no
    /// DISCONT), 4 of 5 engine starts whose first input came 50 ms after PLAYING (WORKAROUNDS §36).
    /// A stop resets the aggregator, so call it before every start. Throws when this is not an aggregator.
    public func fixAggregatorStartAtZero() throws(GStreamerError) {
        guard g_type_is_a(cgst_object_type(gstElement), gst_aggregator_get_type()) != 0 else {
            throw .wrongType(object: name, expected: "GstAggregator", actual: typeName)
        }
        var segment = GstSegment()
        gst_segment_init(&segment, GST_FORMAT_TIME)
        gstElement.withMemoryRebound(to: GstAggregator.self, capacity: 1) { gst_aggregator_update_segment($0, &segment) }
    }
}
