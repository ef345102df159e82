import CGStreamer

/// An event travelling along pads (`GstEvent`), holding one reference.
public final class Event {
    private let gstEvent: UnsafeMutablePointer<GstEvent>

    /// Takes over a reference (transfer full).
    init(adopting event: UnsafeMutablePointer<GstEvent>) { gstEvent = event }

    /// Takes a new reference (transfer none).
    init(retaining event: UnsafeMutablePointer<GstEvent>) {
        gstEvent = event
        gst_mini_object_ref(UnsafeMutableRawPointer(event).assumingMemoryBound(to: GstMiniObject.self))
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(gstEvent).assumingMemoryBound(to: GstMiniObject.self)) }

    /// End of stream (wraps `gst_event_new_eos`).
    public static func endOfStream() throws(GStreamerError) -> Event {
        try GStreamer.initialize()
        return Event(adopting: gst_event_new_eos())
    }

    /// A flushing, accurate seek to `position` at `rate` (wraps `gst_event_new_seek`).
    public static func seek(to position: ClockTime, rate: Double = 1.0) throws(GStreamerError) -> Event {
        try GStreamer.initialize()
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        guard let event = gst_event_new_seek(rate, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, gint64(position.nanoseconds), GST_SEEK_TYPE_NONE, -1) else {
            throw .failed("Cannot make a seek to \(position) at rate \(rate): the rate must not be 0.")
        }
        return Event(adopting: event)
    }

    /// The event's type name, e.g. "eos", "segment", "caps" (wraps `gst_event_type_get_name`).
    public var typeName: String { String(cString: gst_event_type_get_name(gstEvent.pointee.type)) }

    /// True for end of stream.
    public var isEndOfStream: Bool { gstEvent.pointee.type == GST_EVENT_EOS }
    /// True for a new segment.
    public var isSegment: Bool { gstEvent.pointee.type == GST_EVENT_SEGMENT }
    /// True for caps.
    public var isCaps: Bool { gstEvent.pointee.type == GST_EVENT_CAPS }
    /// True for a gap: no data for a stretch of time (a depayloader says a lost packet so).
    public var isGap: Bool { gstEvent.pointee.type == GST_EVENT_GAP }

    /// The caps carried by a CAPS event (wraps `gst_event_parse_caps`).
    public var caps: Caps? {
        guard isCaps else { return nil }
        var caps: UnsafeMutablePointer<GstCaps>?
        gst_event_parse_caps(gstEvent, &caps)
        return caps.map(Caps.init(retaining:))
    }

    /// A new reference for a C call that takes ownership.
    func takeForTransfer() -> UnsafeMutablePointer<GstEvent> {
        gst_mini_object_ref(UnsafeMutableRawPointer(gstEvent).assumingMemoryBound(to: GstMiniObject.self))
        return gstEvent
    }
}

// Events are immutable once created and refcounted atomically.
extension Event: @unchecked Sendable {}
