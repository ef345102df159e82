import CGStreamer

/// A message posted on a bus (`GstMessage`), with an enum view of what it says.
public final class Message: CustomStringConvertible {
    private let gstMessage: UnsafeMutablePointer<GstMessage>

    /// What the message says.
    public let view: View

    /// What a message says, by type. Fields are copied out, so a view can be kept and sent anywhere.
    public enum View: Sendable {
        /// An element failed; `source` is its path (wraps `gst_message_parse_error`).
        case error(GLibError, debug: String?)
        /// A recoverable problem (wraps `gst_message_parse_warning`).
        case warning(GLibError, debug: String?)
        /// Information (wraps `gst_message_parse_info`).
        case info(GLibError, debug: String?)
        /// End of stream: every sink has finished.
        case endOfStream
        /// An element changed state (wraps `gst_message_parse_state_changed`).
        case stateChanged(old: State, new: State, pending: State)
        /// An element-specific message such as `level`'s, with its structure.
        case element(Structure)
        /// An application message.
        case application(Structure)
        /// Latency changed: call `recalculateLatency()` on the pipeline.
        case latency
        /// An element asks the application to change the pipeline's state, e.g. pulsesink
        /// corked by the sound server (wraps `gst_message_parse_request_state`).
        case requestState(State)
        /// A device appeared (wraps `gst_message_parse_device_added`).
        case deviceAdded(Device)
        /// A device went away (wraps `gst_message_parse_device_removed`).
        case deviceRemoved(Device)
        /// A device's properties changed, e.g. it became the default (wraps `gst_message_parse_device_changed`).
        case deviceChanged(Device, previous: Device?)
        /// A new stream started.
        case streamStart
        /// An asynchronous state change finished (wraps `gst_message_parse_async_done`).
        case asyncDone(runningTime: ClockTime?)
        /// Buffering progress in percent (wraps `gst_message_parse_buffering`).
        case buffering(percent: Int)
        /// Buffers were dropped for quality of service (wraps `gst_message_parse_qos` and `_qos_stats`).
        case qos(live: Bool, runningTime: ClockTime?, dropped: UInt64, processed: UInt64)
        /// The clock went away; set the pipeline to PAUSED and back to PLAYING to pick another.
        case clockLost
        /// A new clock was selected.
        case newClock
        /// Any other message type, by name.
        case other(String)
    }

    /// Takes over a reference (transfer full).
    init(adopting message: UnsafeMutablePointer<GstMessage>) {
        gstMessage = message
        view = Message.parse(message)
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(gstMessage).assumingMemoryBound(to: GstMiniObject.self)) }

    /// The name of the object that posted it, e.g. "output-sink".
    public var source: String? {
        guard let source = gstMessage.pointee.src, let name = gst_object_get_name(source) else { return nil }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// The full path of the poster, e.g. "/GstPipeline:engine/GstPulseSink:output-sink".
    public var sourcePath: String? {
        guard let source = gstMessage.pointee.src, let path = gst_object_get_path_string(source) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// True when `object` posted the message.
    public func isFrom(_ object: Object) -> Bool { gstMessage.pointee.src == object.gstObject }

    /// The message type's name, e.g. "state-changed" (wraps `gst_message_type_get_name`).
    public var typeName: String { String(cString: gst_message_type_get_name(gstMessage.pointee.type)) }

    /// The message's sequence number.
    public var sequenceNumber: UInt32 { gst_message_get_seqnum(gstMessage) }

    /// "type from source: details".
    public var description: String {
        let from = source ?? "?"
        switch view {
        case .error(let error, let debug), .warning(let error, let debug), .info(let error, let debug):
            return "\(typeName) from \(from): \(error.message)\(debug.map { " [\($0)]" } ?? "")"
        case .stateChanged(let old, let new, let pending):
            return "state-changed from \(from): \(old) → \(new)\(pending == .voidPending ? "" : " (pending \(pending))")"
        case .element(let structure), .application(let structure):
            return "\(typeName) from \(from): \(structure)"
        case .requestState(let state):
            return "request-state from \(from): \(state)"
        default:
            return "\(typeName) from \(from)"
        }
    }

    private static func parse(_ message: UnsafeMutablePointer<GstMessage>) -> View {
        func parseGError(_ parser: (UnsafeMutablePointer<GstMessage>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>, UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>) -> Void) -> (GLibError, String?) {
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            parser(message, &error, &debug)
            defer { g_free(debug) }
            let parsed = GLibError(consuming: error) ?? GLibError(domain: "unknown", code: 0, message: "unknown error")
            return (parsed, debug.map { String(cString: $0) })
        }
        func structure() -> Structure? {
            gst_message_get_structure(message).map { Structure(copying: $0) }
        }
        func device(_ parser: (UnsafeMutablePointer<GstMessage>, UnsafeMutablePointer<UnsafeMutablePointer<GstDevice>?>) -> Void) -> Device? {
            var device: UnsafeMutablePointer<GstDevice>?
            parser(message, &device)
            // The device parsers return a full reference.
            return device.map { Device(adopting: UnsafeMutableRawPointer($0).assumingMemoryBound(to: GstObject.self)) }
        }

        switch message.pointee.type {
        case GST_MESSAGE_ERROR:
            let (error, debug) = parseGError { gst_message_parse_error($0, $1, $2) }
            return .error(error, debug: debug)
        case GST_MESSAGE_WARNING:
            let (error, debug) = parseGError { gst_message_parse_warning($0, $1, $2) }
            return .warning(error, debug: debug)
        case GST_MESSAGE_INFO:
            let (error, debug) = parseGError { gst_message_parse_info($0, $1, $2) }
            return .info(error, debug: debug)
        case GST_MESSAGE_EOS:
            return .endOfStream
        case GST_MESSAGE_STATE_CHANGED:
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(message, &old, &new, &pending)
            return .stateChanged(old: State(old), new: State(new), pending: State(pending))
        case GST_MESSAGE_ELEMENT:
            return structure().map(View.element) ?? .other("element")
        case GST_MESSAGE_APPLICATION:
            return structure().map(View.application) ?? .other("application")
        case GST_MESSAGE_LATENCY:
            return .latency
        case GST_MESSAGE_REQUEST_STATE:
            var state = GST_STATE_VOID_PENDING
            gst_message_parse_request_state(message, &state)
            return .requestState(State(state))
        case GST_MESSAGE_DEVICE_ADDED:
            return device { gst_message_parse_device_added($0, $1) }.map(View.deviceAdded) ?? .other("device-added")
        case GST_MESSAGE_DEVICE_REMOVED:
            return device { gst_message_parse_device_removed($0, $1) }.map(View.deviceRemoved) ?? .other("device-removed")
        case GST_MESSAGE_DEVICE_CHANGED:
            var current: UnsafeMutablePointer<GstDevice>?
            var previous: UnsafeMutablePointer<GstDevice>?
            gst_message_parse_device_changed(message, &current, &previous)
            let wrap = { (pointer: UnsafeMutablePointer<GstDevice>) in Device(adopting: UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)) }
            guard let current else { return .other("device-changed") }
            return .deviceChanged(wrap(current), previous: previous.map(wrap))
        case GST_MESSAGE_STREAM_START:
            return .streamStart
        case GST_MESSAGE_ASYNC_DONE:
            var runningTime: GstClockTime = ClockTime.none
            gst_message_parse_async_done(message, &runningTime)
            return .asyncDone(runningTime: ClockTime(raw: runningTime))
        case GST_MESSAGE_BUFFERING:
            var percent: gint = 0
            gst_message_parse_buffering(message, &percent)
            return .buffering(percent: Int(percent))
        case GST_MESSAGE_QOS:
            var live: gboolean = 0
            var runningTime: guint64 = 0, streamTime: guint64 = 0, timestamp: guint64 = 0, duration: guint64 = 0
            gst_message_parse_qos(message, &live, &runningTime, &streamTime, &timestamp, &duration)
            var format = GST_FORMAT_UNDEFINED
            var processed: guint64 = 0, dropped: guint64 = 0
            gst_message_parse_qos_stats(message, &format, &processed, &dropped)
            return .qos(live: live != 0, runningTime: ClockTime(raw: runningTime), dropped: dropped == guint64.max ? 0 : UInt64(dropped),
                        processed: processed == guint64.max ? 0 : UInt64(processed))
        case GST_MESSAGE_CLOCK_LOST:
            return .clockLost
        case GST_MESSAGE_NEW_CLOCK:
            return .newClock
        default:
            return .other(String(cString: gst_message_type_get_name(message.pointee.type)))
        }
    }
}

// Messages are immutable once posted and refcounted atomically; the view is a copy.
extension Message: @unchecked Sendable {}
