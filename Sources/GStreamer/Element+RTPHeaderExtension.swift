import CGStreamer

extension Element {
    /// Has this RTP payloader write the header extension `uri` (one GStreamer implements, such as
    /// RFC 6464's `urn:ietf:params:rtp-hdrext:ssrc-audio-level`) under `id` in every packet, and
    /// name it in its caps as `extmap-ID` (wraps `gst_rtp_header_extension_create_from_uri` and
    /// the payloader's `add-extension`). Call before the payloader starts.
    public func addRTPHeaderExtension(uri: String, id: Int) throws(GStreamerError) {
        guard (1...14).contains(id) else { throw .failed("an RTP header extension's id is 1 to 14 (one-byte headers), not \(id)") }
        guard let extensionElement = gst_rtp_header_extension_create_from_uri(uri) else {
            throw .failed("GStreamer has no RTP header extension for \(uri) (gst-plugins-good's rtpmanager provides the common ones)")
        }
        // create_from_uri gives a full reference; the payloader takes its own.
        defer { gst_object_unref(extensionElement) }
        gst_rtp_header_extension_set_id(extensionElement, guint(id))
        cgst_signal_emit_object(gstElement, "add-extension", extensionElement)
    }
}
