import CGStreamer

extension Pad {
    /// Adds a buffer probe that rewrites each buffer's S16 samples in place on the streaming thread:
    /// the buffer is made writable (copied only when someone else holds it; wraps
    /// `gst_mini_object_make_writable`), handed back to the pad, and mapped for writing (`gst_buffer_map`)
    /// while `rewrite` runs with its samples and PTS. The pad must carry native-endian S16 audio.
    ///
    /// `wanted` is asked first on each buffer: when it says no, the buffer passes as it is (not made
    /// writable, so not copied). `rewrite` must not block nor keep the pointer. Keep the token: dropping it removes the probe.
    public func addSampleRewriter(when wanted: @escaping @Sendable () -> Bool = { true },
                                  _ rewrite: @escaping @Sendable (_ samples: UnsafeMutableBufferPointer<Int16>, _ pts: ClockTime?) -> Void) -> PadProbe? {
        addProbe(.buffer, box: PadProbeBox { _, info in
            guard wanted(), let buffer = info.writableBuffer() else { return GST_PAD_PROBE_OK }
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)) != 0 else { return GST_PAD_PROBE_OK }
            defer { gst_buffer_unmap(buffer, &map) }
            if let base = map.data {
                let samples = UnsafeMutableRawPointer(base).bindMemory(to: Int16.self, capacity: Int(map.size) / 2)
                rewrite(UnsafeMutableBufferPointer(start: samples, count: Int(map.size) / 2), ClockTime(raw: buffer.pointee.pts))
            }
            return GST_PAD_PROBE_OK
        })
    }
}
