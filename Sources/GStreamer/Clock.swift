import CGStreamer

/// A clock (`GstClock`).
public final class Clock: Object {
    override class var gType: GType? { gst_clock_get_type() }

    /// The process-wide monotonic system clock (wraps `gst_system_clock_obtain`).
    public static func system() throws(GStreamerError) -> Clock {
        try GStreamer.initialize()
        // gst_system_clock_obtain: transfer full.
        return Clock(adopting: UnsafeMutableRawPointer(gst_system_clock_obtain()).assumingMemoryBound(to: GstObject.self))
    }

    /// The clock's current time (wraps `gst_clock_get_time`).
    public var time: ClockTime { ClockTime(raw: gst_clock_get_time(pointer(as: GstClock.self))) ?? .zero }
}

// Thread-safe like every GstObject wrapper (see Object).
extension Clock: @unchecked Sendable {}
