import CGStreamer
import Synchronization

/// What a pad probe watches for (`GstPadProbeType`).
public struct PadProbeType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Called when the pad is idle; with `.block` the pad stays blocked while idle.
    public static let idle = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_IDLE.rawValue)
    /// Blocks dataflow at the pad until the probe is removed or returns `.remove`/`.pass`.
    public static let block = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_BLOCK.rawValue)
    /// Buffers.
    public static let buffer = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue)
    /// Buffer lists.
    public static let bufferList = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
    /// Downstream events (EOS, segment, caps …).
    public static let eventDownstream = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
    /// Upstream events (seek, QoS, latency …).
    public static let eventUpstream = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue)
    /// Flush events.
    public static let eventFlush = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_EVENT_FLUSH.rawValue)
    /// Downstream queries.
    public static let queryDownstream = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue)
    /// Upstream queries.
    public static let queryUpstream = PadProbeType(rawValue: GST_PAD_PROBE_TYPE_QUERY_UPSTREAM.rawValue)

    /// All downstream data: buffers, buffer lists and downstream events.
    public static let dataDownstream: PadProbeType = [.buffer, .bufferList, .eventDownstream]
    /// Block downstream data (`GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM`).
    public static let blockDownstream: PadProbeType = [.block, .dataDownstream]
    /// Idle or blocking (`GST_PAD_PROBE_TYPE_BLOCKING`).
    public static let blocking: PadProbeType = [.idle, .block]
}

/// What a probe callback tells GStreamer to do (`GstPadProbeReturn`).
public enum PadProbeReturn: Sendable {
    /// Let the data through; a blocking probe stays blocked (`GST_PAD_PROBE_OK`).
    case ok
    /// Drop the data; a blocking probe stays blocked (`GST_PAD_PROBE_DROP`).
    case drop
    /// Let the data through and remove the probe (`GST_PAD_PROBE_REMOVE`).
    case remove
    /// Let this item through without unblocking (`GST_PAD_PROBE_PASS`).
    case pass
    /// The probe handled the item itself (`GST_PAD_PROBE_HANDLED`).
    case handled

    var raw: GstPadProbeReturn {
        switch self {
        case .ok: return GST_PAD_PROBE_OK
        case .drop: return GST_PAD_PROBE_DROP
        case .remove: return GST_PAD_PROBE_REMOVE
        case .pass: return GST_PAD_PROBE_PASS
        case .handled: return GST_PAD_PROBE_HANDLED
        }
    }
}

/// What a probe is called with.
public struct PadProbeInfo: Sendable {
    /// Why the probe was called (the matching subset of the probe's types).
    public let type: PadProbeType
    /// The buffer, for buffer probes.
    public let buffer: Buffer?
    /// The event, for event probes.
    public let event: Event?
    /// The query, for query probes; usable only inside the callback.
    public let query: ProbeQuery?
    /// The pad the probe is on.
    public let pad: Pad
}

/// A query seen by a probe, answered in place (the probe then returns `.handled`). Valid only
/// during the probe callback: the query belongs to its caller and is writable only there.
public struct ProbeQuery: @unchecked Sendable {
    // Not retained on purpose: a second reference would make the query read-only.
    let gstQuery: UnsafeMutablePointer<GstQuery>

    /// True for a CAPS query (`GST_QUERY_CAPS`).
    public var isCaps: Bool { gstQuery.pointee.type == GST_QUERY_CAPS }
    /// True for an ACCEPT_CAPS query (`GST_QUERY_ACCEPT_CAPS`).
    public var isAcceptCaps: Bool { gstQuery.pointee.type == GST_QUERY_ACCEPT_CAPS }
    /// True for a LATENCY query (`GST_QUERY_LATENCY`).
    public var isLatency: Bool { gstQuery.pointee.type == GST_QUERY_LATENCY }

    /// Answers a CAPS query (wraps `gst_query_set_caps_result`).
    public func answerCaps(_ caps: Caps) { gst_query_set_caps_result(gstQuery, caps.gstCaps) }
    /// Answers an ACCEPT_CAPS query (wraps `gst_query_set_accept_caps_result`).
    public func answerAcceptCaps(_ accepted: Bool) { gst_query_set_accept_caps_result(gstQuery, accepted ? 1 : 0) }
    /// Answers a LATENCY query; a nil `max` is unbounded (wraps `gst_query_set_latency`).
    public func answerLatency(live: Bool, min: ClockTime, max: ClockTime?) {
        gst_query_set_latency(gstQuery, live ? 1 : 0, min.gst, max?.gst ?? GstClockTime.max)
    }
}

/// A registered pad probe; removing it (or dropping the token) undoes it (wraps `gst_pad_add_probe` / `gst_pad_remove_probe`).
public final class PadProbe: Sendable {
    private let pad: Pad
    private let id: gulong
    private let box: PadProbeBox

    init(pad: Pad, id: gulong, box: PadProbeBox) {
        self.pad = pad; self.id = id; self.box = box
    }

    /// True until the probe is removed, by `remove()`, by the callback returning `.remove`, or with its pad.
    public var isActive: Bool { !box.removed.load(ordering: .acquiring) }

    /// Removes the probe; a blocked pad is released. Harmless when already removed.
    public func remove() {
        // Only one remover may call gst_pad_remove_probe; the callback's own `.remove` marks it too.
        guard !box.removed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        gst_pad_remove_probe(pad.gstPad, id)
    }

    deinit { remove() }
}

extension Pad {
    /// Adds a probe of `type`; `callback` runs on the streaming thread and must not block (wraps `gst_pad_add_probe`).
    ///
    /// Keep the returned token: dropping it removes the probe (and unblocks a blocked pad).
    /// Returns nil when an idle probe ran and was removed at once (the pad was already idle).
    public func addProbe(_ type: PadProbeType, _ callback: @escaping @Sendable (PadProbeInfo) -> PadProbeReturn) -> PadProbe? {
        addProbe(type, box: PadProbeBox(callback: callback))
    }
}

/// The boxed handler passed as user_data; released by GStreamer's destroy notify.
final class PadProbeBox: Sendable {
    /// Runs on the streaming thread with the raw pad and probe info (which it may rewrite).
    let handle: @Sendable (UnsafeMutablePointer<GstPad>, UnsafeMutablePointer<GstPadProbeInfo>) -> GstPadProbeReturn
    /// Set once the probe is gone, so the token never removes it twice.
    let removed = Atomic<Bool>(false)

    // The box must not hold the pad: the pad holds the box until the probe goes.
    init(handle: @escaping @Sendable (UnsafeMutablePointer<GstPad>, UnsafeMutablePointer<GstPadProbeInfo>) -> GstPadProbeReturn) {
        self.handle = handle
    }

    /// A box for a callback that reads the probe's data through wrappers.
    convenience init(callback: @escaping @Sendable (PadProbeInfo) -> PadProbeReturn) {
        self.init { pad, info in callback(PadProbeInfo(pad: pad, info: info)).raw }
    }
}

extension Pad {
    /// Registers `box` for `type`: the token, or nil when an idle probe already ran and was removed.
    func addProbe(_ type: PadProbeType, box: PadProbeBox) -> PadProbe? {
        let context = Unmanaged.passRetained(box).toOpaque()
        let id = gst_pad_add_probe(gstPad, GstPadProbeType(rawValue: type.rawValue), padProbeTrampoline, context, padProbeDestroy)
        // 0: an IDLE probe that already ran and asked to be removed; the destroy notify released the box.
        return id == 0 ? nil : PadProbe(pad: self, id: id, box: box)
    }
}

extension PadProbeInfo {
    /// Wraps what GStreamer passed a probe (references taken on the buffer, event and pad).
    init(pad: UnsafeMutablePointer<GstPad>, info: UnsafeMutablePointer<GstPadProbeInfo>) {
        let type = PadProbeType(rawValue: info.pointee.type.rawValue)
        var buffer: Buffer?
        var event: Event?
        var query: ProbeQuery?
        if let data = info.pointee.data {
            if !type.isDisjoint(with: [.queryDownstream, .queryUpstream]) {
                query = ProbeQuery(gstQuery: data.assumingMemoryBound(to: GstQuery.self))
            } else if type.contains(.buffer) {
                buffer = Buffer(retaining: data.assumingMemoryBound(to: GstBuffer.self))
            } else if !type.isDisjoint(with: [.eventDownstream, .eventUpstream, .eventFlush]) {
                event = Event(retaining: data.assumingMemoryBound(to: GstEvent.self))
            }
        }
        let padWrapper = Pad(retaining: UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GstObject.self))
        self.init(type: type, buffer: buffer, event: event, query: query, pad: padWrapper)
    }
}

private let padProbeTrampoline: GstPadProbeCallback = { pad, info, userData in
    guard let pad, let info, let userData else { return GST_PAD_PROBE_OK }
    let box = Unmanaged<PadProbeBox>.fromOpaque(userData).takeUnretainedValue()
    let result = box.handle(pad, info)
    if result == GST_PAD_PROBE_REMOVE { box.removed.store(true, ordering: .releasing) }
    return result
}

private let padProbeDestroy: GDestroyNotify = { userData in
    guard let userData else { return }
    let box = Unmanaged<PadProbeBox>.fromOpaque(userData)
    box.takeUnretainedValue().removed.store(true, ordering: .releasing)
    box.release()
}

extension UnsafeMutablePointer where Pointee == GstPadProbeInfo {
    /// The probe's buffer made writable (copied only when someone else holds it) and handed back to
    /// the pad in its place; nil when the probe carries no data. make_writable takes over the probe's
    /// reference and returns the one the pad pushes on.
    func writableBuffer() -> UnsafeMutablePointer<GstBuffer>? {
        guard let data = pointee.data else { return nil }
        let writable = gst_mini_object_make_writable(data.assumingMemoryBound(to: GstMiniObject.self))
        pointee.data = UnsafeMutableRawPointer(writable)
        return UnsafeMutableRawPointer(writable)?.assumingMemoryBound(to: GstBuffer.self)
    }
}
