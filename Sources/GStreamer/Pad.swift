import CGStreamer

/// A pad: an element's input or output (`GstPad`).
public class Pad: Object {
    override class var gType: GType? { gst_pad_get_type() }

    var gstPad: UnsafeMutablePointer<GstPad> { pointer(as: GstPad.self) }

    /// Which way data flows through a pad.
    public enum Direction: Sendable, Hashable {
        /// Data leaves the element here (`GST_PAD_SRC`).
        case source
        /// Data enters the element here (`GST_PAD_SINK`).
        case sink
        /// Not known (`GST_PAD_UNKNOWN`).
        case unknown
    }

    /// The pad's direction (wraps `gst_pad_get_direction`).
    public var direction: Direction {
        switch gst_pad_get_direction(gstPad) {
        case GST_PAD_SRC: return .source
        case GST_PAD_SINK: return .sink
        default: return .unknown
        }
    }

    /// The element that owns the pad (wraps `gst_pad_get_parent_element`).
    public var parentElement: Element? {
        guard let parent = gst_pad_get_parent_element(gstPad) else { return nil }
        return Element(adopting: UnsafeMutableRawPointer(parent).assumingMemoryBound(to: GstObject.self))
    }

    /// The pad this one is linked to (wraps `gst_pad_get_peer`).
    public var peer: Pad? {
        guard let peer = gst_pad_get_peer(gstPad) else { return nil }
        return Pad(adopting: UnsafeMutableRawPointer(peer).assumingMemoryBound(to: GstObject.self))
    }

    /// The latency of everything upstream of this sink pad, as its peer answers a LATENCY query;
    /// nil when the peer does not answer (wraps `gst_pad_peer_query`). Safe inside a probe on
    /// the same element's source pad: the query goes upstream from here, not through that pad.
    public func peerLatency() -> Latency? {
        let query = gst_query_new_latency()
        defer { gst_query_unref(query) }
        guard gst_pad_peer_query(gstPad, query) != 0 else { return nil }
        var live: gboolean = 0
        var minimum: GstClockTime = 0, maximum: GstClockTime = 0
        gst_query_parse_latency(query, &live, &minimum, &maximum)
        return Latency(isLive: live != 0, minimum: ClockTime(raw: minimum) ?? .zero, maximum: ClockTime(raw: maximum))
    }

    /// True when linked (wraps `gst_pad_is_linked`).
    public var isLinked: Bool { gst_pad_is_linked(gstPad) != 0 }

    /// Why the last buffer pushed through this pad did not flow, nil when it did (wraps
    /// `gst_pad_get_last_flow_return`): a branch whose sink failed says `.error` here.
    public var lastFlowError: FlowError? { FlowError(GstFlowReturnValue(gst_pad_get_last_flow_return(gstPad).rawValue)) }

    /// Whether a pad's task runs (GstTaskState).
    public enum TaskState: Sendable, Hashable {
        /// Its function is being called over and over.
        case started
        /// It waits to be started again: its element stopped it (end of data, an error, a flush).
        case paused
        /// None, or stopped.
        case stopped
    }

    /// The task that runs on the pad (a pull-mode demuxer's loop on its sink pad, a source's on
    /// its source pad); `.stopped` when it has none (wraps `gst_pad_get_task_state`).
    public var taskState: TaskState {
        switch gst_pad_get_task_state(gstPad) {
        case GST_TASK_STARTED: return .started
        case GST_TASK_PAUSED: return .paused
        default: return .stopped
        }
    }

    /// True when no thread holds the pad's stream lock at this instant (a trylock, let go at once).
    /// A pad's task holds it for as long as its function runs, and lets go only while it waits:
    /// an element that pauses its own task from inside the function (oggdemux around its first
    /// seek) reads `.paused` with the lock still held.
    public var isStreamLockFree: Bool {
        guard g_rec_mutex_trylock(&gstPad.pointee.stream_rec_lock) != 0 else { return false }
        g_rec_mutex_unlock(&gstPad.pointee.stream_rec_lock)
        return true
    }

    /// True while a blocking probe holds the pad (wraps `gst_pad_is_blocked`).
    public var isBlocked: Bool { gst_pad_is_blocked(gstPad) != 0 }

    /// Links this source pad to a sink pad (wraps `gst_pad_link`); throws `linkFailed` with the reason.
    public func link(to sink: Pad) throws(GStreamerError) {
        let result = gst_pad_link(gstPad, sink.gstPad)
        let reason: PadLinkError.Reason
        switch result {
        case GST_PAD_LINK_OK: return
        case GST_PAD_LINK_WRONG_HIERARCHY: reason = .wrongHierarchy
        case GST_PAD_LINK_WAS_LINKED: reason = .wasLinked
        case GST_PAD_LINK_WRONG_DIRECTION: reason = .wrongDirection
        case GST_PAD_LINK_NOFORMAT: reason = .noFormat
        case GST_PAD_LINK_NOSCHED: reason = .noScheduling
        default: reason = .refused
        }
        throw .linkFailed(PadLinkError(reason: reason, source: qualifiedName, sink: sink.qualifiedName))
    }

    /// Unlinks this source pad from `sink` (wraps `gst_pad_unlink`); false when they were not linked.
    @discardableResult
    public func unlink(from sink: Pad) -> Bool { gst_pad_unlink(gstPad, sink.gstPad) != 0 }

    /// The negotiated caps, nil before negotiation (wraps `gst_pad_get_current_caps`).
    public var currentCaps: Caps? {
        guard let caps = gst_pad_get_current_caps(gstPad) else { return nil }
        return Caps(adopting: caps)
    }

    /// The caps the pad could handle now (wraps `gst_pad_query_caps`).
    public func queryCaps(filter: Caps? = nil) -> Caps {
        Caps(adopting: gst_pad_query_caps(gstPad, filter?.gstCaps))
    }

    /// A running-time offset applied to everything passing the pad (wraps `gst_pad_get_offset`/`gst_pad_set_offset`).
    ///
    /// Used to start a non-live branch "now" in a running live pipeline.
    public var offset: Int64 {
        get { Int64(gst_pad_get_offset(gstPad)) }
        set { gst_pad_set_offset(gstPad, gint64(newValue)) }
    }

    /// Sends an event from this pad (wraps `gst_pad_send_event` on sink pads, `gst_pad_push_event` on source pads).
    @discardableResult
    public func send(_ event: Event) -> Bool {
        direction == .source
            ? gst_pad_push_event(gstPad, event.takeForTransfer()) != 0
            : gst_pad_send_event(gstPad, event.takeForTransfer()) != 0
    }

    /// "element:pad".
    var qualifiedName: String { "\(parentElement?.name ?? "?"):\(name)" }
}

/// A pad that forwards to a pad inside a bin (`GstGhostPad`).
public final class GhostPad: Pad {
    override class var gType: GType? { gst_ghost_pad_get_type() }

    /// A ghost pad called `name` for `target` (wraps `gst_ghost_pad_new`); add it to the bin with `addPad(_:)`.
    public convenience init(name: String, target: Pad) throws(GStreamerError) {
        guard let pad = gst_ghost_pad_new(name, target.gstPad) else {
            throw .failed("Cannot make ghost pad '\(name)' for \(target.qualifiedName).")
        }
        // gst_ghost_pad_new: transfer floating.
        self.init(retaining: UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GstObject.self))
    }

    /// A ghost pad without a target yet (wraps `gst_ghost_pad_new_no_target`).
    public convenience init(name: String, direction: Direction) throws(GStreamerError) {
        let raw = direction == .source ? GST_PAD_SRC : GST_PAD_SINK
        guard let pad = gst_ghost_pad_new_no_target(name, raw) else { throw .failed("Cannot make ghost pad '\(name)'.") }
        self.init(retaining: UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GstObject.self))
    }

    /// The pad it forwards to (wraps `gst_ghost_pad_get_target` / `gst_ghost_pad_set_target`).
    public func setTarget(_ target: Pad?) throws(GStreamerError) {
        guard gst_ghost_pad_set_target(pointer(as: GstGhostPad.self), target?.gstPad) != 0 else {
            throw .failed("Cannot retarget ghost pad '\(name)'.")
        }
    }

    /// The current target pad.
    public var target: Pad? {
        guard let target = gst_ghost_pad_get_target(pointer(as: GstGhostPad.self)) else { return nil }
        return Pad(adopting: UnsafeMutableRawPointer(target).assumingMemoryBound(to: GstObject.self))
    }
}

// Thread-safe like every GstObject wrapper (see Object).
extension Pad: @unchecked Sendable {}

// Thread-safe like every GstObject wrapper (see Object).
extension GhostPad: @unchecked Sendable {}
