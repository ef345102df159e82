import CGStreamer

extension Pad {
    /// A string tag of the stream flowing through this pad, from its sticky TAG event (wraps
    /// `gst_pad_get_sticky_event` + `gst_event_parse_tag` + `gst_tag_list_get_string`), e.g.
    /// "language-code" or "title"; nil before the tags arrived or when the stream has none.
    public func tag(_ name: String) -> String? {
        var index: guint = 0
        // A stream may carry several tag events (stream and global scope): look at each.
        while let event = gst_pad_get_sticky_event(gstPad, GST_EVENT_TAG, index) {
            defer { gst_event_unref(event) }
            index += 1
            var list: UnsafeMutablePointer<GstTagList>?
            gst_event_parse_tag(event, &list)   // transfer none: owned by the event
            guard let list else { continue }
            var value: UnsafeMutablePointer<gchar>?
            if gst_tag_list_get_string(list, name, &value) != 0, let value {
                defer { g_free(value) }
                return String(cString: value)
            }
        }
        return nil
    }
}
