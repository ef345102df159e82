import CGStreamer

extension Pad {
    /// Adds a buffer probe that clears `GST_BUFFER_FLAG_GAP` on each buffer that has it, so the
    /// element behind the pad renders the buffer's contents instead of skipping them.
    ///
    /// audiobasesink drops a GAP buffer's contents ("Received GAP … Dropping contents") and keeps
    /// only its timing. pulsesink writes straight into its sound-server stream, so a mix of GAP
    /// buffers (audiomixer's output while no input has data) reaches the server as nothing at all,
    /// and the server's stream runs dry: an underrun each time every feed stops (WORKAROUNDS §35).
    /// audiomixer fills a GAP buffer with silence, so rendering it plays silence on time.
    ///
    /// A buffer without the flag passes as it is; one with it is made writable (copied only when
    /// someone else holds it). Keep the token: dropping it removes the probe.
    public func addGapsAsSilence() -> PadProbe? {
        addProbe(.buffer, box: PadProbeBox { _, info in
            guard let data = info.pointee.data else { return GST_PAD_PROBE_OK }
            let gap = GstBufferFlags(rawValue: GST_BUFFER_FLAG_GAP.rawValue).rawValue
            guard data.assumingMemoryBound(to: GstBuffer.self).pointee.mini_object.flags & gap != 0 else { return GST_PAD_PROBE_OK }
            info.writableBuffer()?.pointee.mini_object.flags &= ~gap
            return GST_PAD_PROBE_OK
        })
    }
}
