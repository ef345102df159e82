import CGStreamer

extension Pad {
    /// Replaces every SEGMENT event leaving this pad with an open TIME segment from 0 (base 0), in
    /// which a buffer's timestamp is its running time: for the output of an element that restamps its
    /// buffers with running time but forwards the upstream segment as it came (webrtcdsp). Behind such
    /// an element a segment with an end, or a base, puts the buffers elsewhere than they are, and an
    /// element that clips to the segment drops them. Keep the token while the pad is in use.
    public func addRunningTimeSegment() -> PadProbe? {
        addProbe(.eventDownstream, box: PadProbeBox { _, info in
            guard let data = info.pointee.data else { return GST_PAD_PROBE_OK }
            let event = data.assumingMemoryBound(to: GstEvent.self)
            guard event.pointee.type == GST_EVENT_SEGMENT else { return GST_PAD_PROBE_OK }
            var segment = GstSegment()
            gst_segment_init(&segment, GST_FORMAT_TIME)
            guard let replacement = gst_event_new_segment(&segment) else { return GST_PAD_PROBE_OK }
            gst_event_set_seqnum(replacement, gst_event_get_seqnum(event))
            // The probe owns the event it was given: the replacement goes on in its place.
            info.pointee.data = UnsafeMutableRawPointer(replacement)
            gst_mini_object_unref(UnsafeMutableRawPointer(event).assumingMemoryBound(to: GstMiniObject.self))
            return GST_PAD_PROBE_OK
        })
    }
}
