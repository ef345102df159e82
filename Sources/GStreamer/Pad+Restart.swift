import CGStreamer

extension Pad {
    /// Tells everything downstream of this source pad that a new stream starts here, as a seek
    /// would, but on the same running time: flush-start, a flush-stop that keeps the time, and the
    /// pad's segment again (a flush-stop removes it). rtpjitterbuffer resets only on a flush: a new
    /// sender's sequence numbers are otherwise judged against the last sender's (too late, or a
    /// gap it reports lost). Call it on the pad's streaming thread, before the new stream's first
    /// buffer (from a buffer probe on this pad). False if the pad has no segment yet or a push was refused.
    @discardableResult
    public func restartDownstream() -> Bool {
        guard direction == .source, let segment = gst_pad_get_sticky_event(gstPad, GST_EVENT_SEGMENT, 0) else { return false }
        let started = gst_pad_push_event(gstPad, gst_event_new_flush_start()) != 0
        let stopped = gst_pad_push_event(gstPad, gst_event_new_flush_stop(0)) != 0
        // gst_pad_push_event takes the segment's reference.
        let segmented = gst_pad_push_event(gstPad, segment) != 0
        return started && stopped && segmented
    }
}
