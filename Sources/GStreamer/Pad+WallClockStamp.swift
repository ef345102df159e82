import CGStreamer
import Glibc

extension Pad {
    /// Seconds from the NTP epoch (1900) to the Unix one (1970).
    public static let ntpEpochOffset: UInt64 = 2_208_988_800

    /// Adds a buffer probe that stamps each buffer with the wall clock as NTP time (a
    /// `GstReferenceTimestampMeta` with `timestamp/x-ntp` caps; wraps
    /// `gst_buffer_add_reference_timestamp_meta`): what `rtphdrextntp64` writes into an RTP
    /// packet's header extension when it is on the payloader's sink pad. Keep the token.
    public func addWallClockStamp() throws(GStreamerError) -> PadProbe? {
        let reference = try Caps("timestamp/x-ntp")
        return addProbe(.buffer, box: PadProbeBox(handle: { _, info in
            guard let buffer = info.writableBuffer() else { return GST_PAD_PROBE_OK }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let ntp = (UInt64(now.tv_sec) + Pad.ntpEpochOffset) * 1_000_000_000 + UInt64(now.tv_nsec)
            gst_buffer_add_reference_timestamp_meta(buffer, reference.gstCaps, GstClockTime(ntp), GstClockTime.max)
            return GST_PAD_PROBE_OK
        }))
    }
}
