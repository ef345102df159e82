import CGStreamer

/// A streaming thread starting or ending its work for an element (`GST_MESSAGE_STREAM_STATUS`,
/// types ENTER and LEAVE), seen on that very thread: the place to give it a scheduling priority.
public enum StreamingThreadEvent: Sendable, Equatable {
    /// The thread is about to run `owner`'s task (a pad's loop: a source, a queue, an aggregator).
    case entered(owner: String)
    /// The thread is done with `owner`'s task; a pooled thread may run another element's next.
    case left(owner: String)

    /// The element whose task the thread enters or leaves.
    public var owner: String {
        switch self {
        case .entered(let owner), .left(let owner): return owner
        }
    }
}

extension Bus {
    /// Calls `hook` on each streaming thread of this bus's pipeline as it enters and leaves its
    /// task, before anything else sees the message (`gst_bus_set_sync_handler`; every message is
    /// then passed on to subscribers as before). A bus has one such hook for its life: set it
    /// before the pipeline starts, once.
    public func onStreamingThreads(_ hook: @escaping @Sendable (StreamingThreadEvent) -> Void) {
        let box = Unmanaged.passRetained(StreamingThreadHook(hook)).toOpaque()
        gst_bus_set_sync_handler(gstBus, { _, message, userdata in
            guard let message, let userdata, message.pointee.type == GST_MESSAGE_STREAM_STATUS else { return GST_BUS_PASS }
            var type = GST_STREAM_STATUS_TYPE_CREATE
            var owner: UnsafeMutablePointer<GstElement>?
            gst_message_parse_stream_status(message, &type, &owner)
            guard let owner, type == GST_STREAM_STATUS_TYPE_ENTER || type == GST_STREAM_STATUS_TYPE_LEAVE else { return GST_BUS_PASS }
            let name = gst_object_get_name(UnsafeMutableRawPointer(owner).assumingMemoryBound(to: GstObject.self)).map { raw in
                defer { g_free(raw) }
                return String(cString: raw)
            } ?? ""
            let hook = Unmanaged<StreamingThreadHook>.fromOpaque(userdata).takeUnretainedValue().hook
            hook(type == GST_STREAM_STATUS_TYPE_ENTER ? .entered(owner: name) : .left(owner: name))
            return GST_BUS_PASS
        }, box, { userdata in
            if let userdata { Unmanaged<StreamingThreadHook>.fromOpaque(userdata).release() }
        })
    }
}

/// The hook's box, owned by the bus (released by its destroy notify).
private final class StreamingThreadHook: Sendable {
    let hook: @Sendable (StreamingThreadEvent) -> Void
    init(_ hook: @escaping @Sendable (StreamingThreadEvent) -> Void) { self.hook = hook }
}
