import CGStreamer

/// A GStreamer element (`GstElement`).
public class Element: Object {
    override class var gType: GType? { gst_element_get_type() }

    var gstElement: UnsafeMutablePointer<GstElement> { pointer(as: GstElement.self) }

    /// The name of the factory that made it, e.g. "audiomixer".
    public var factoryName: String {
        guard let factory = gst_element_get_factory(gstElement), let name = gst_object_get_name(UnsafeMutablePointer<GstObject>(factory)) else { return typeName }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// The element's class from its factory, e.g. "Codec/Demuxer"; empty for an element made
    /// without a factory (wraps `gst_element_factory_get_metadata`).
    public var klass: String {
        guard let factory = gst_element_get_factory(gstElement),
              let klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) else { return "" }
        return String(cString: klass)
    }

    // MARK: State

    /// Starts a state change (wraps `gst_element_set_state`); throws `stateChangeFailed` on FAILURE.
    @discardableResult
    public func setState(_ state: State) throws(GStreamerError) -> StateChangeResult {
        switch gst_element_set_state(gstElement, state.raw) {
        case GST_STATE_CHANGE_SUCCESS: return .success
        case GST_STATE_CHANGE_ASYNC: return .async
        case GST_STATE_CHANGE_NO_PREROLL: return .noPreroll
        default: throw .stateChangeFailed(element: name, target: state, error: nil, debug: nil)
        }
    }

    /// Changes state and waits up to `timeout` for it to complete (wraps `gst_element_set_state` + `gst_element_get_state`).
    @discardableResult
    public func setState(_ state: State, waitingUpTo timeout: ClockTime) throws(GStreamerError) -> StateChangeResult {
        let result = try setState(state)
        guard result == .async else { return result }
        let outcome = currentState(waitingUpTo: timeout)
        switch outcome.result {
        case .success(let settled): return settled
        case .failure(let error): throw error == .timedOut
            ? .stateChangeTimedOut(element: name, target: state, waited: timeout)
            : .stateChangeFailed(element: name, target: state, error: nil, debug: nil)
        }
    }

    /// Changes state and waits up to `timeout` for it, but gives up as soon as `hasFailed` says so:
    /// an element that fails from its streaming thread (a demuxer on a damaged file) posts an error
    /// and leaves the change pending, so waiting for the state alone would sit out the whole timeout.
    /// Throws `stateChangeFailed` when `hasFailed`, `stateChangeTimedOut` when time runs out.
    @discardableResult
    public func setState(_ state: State, waitingUpTo timeout: ClockTime, unless hasFailed: () -> Bool) throws(GStreamerError) -> StateChangeResult {
        let result = try setState(state)
        guard result == .async else { return result }
        let slice = ClockTime.milliseconds(20)
        var waited = ClockTime.zero
        while true {
            if hasFailed() { throw .stateChangeFailed(element: name, target: state, error: nil, debug: "an error was posted while it changed state") }
            switch currentState(waitingUpTo: slice).result {
            case .success(let settled): return settled
            case .failure(.failed): throw .stateChangeFailed(element: name, target: state, error: nil, debug: nil)
            case .failure(.timedOut):
                waited = waited + slice
                if waited >= timeout { throw .stateChangeTimedOut(element: name, target: state, waited: timeout) }
            }
        }
    }

    /// Why waiting for a state did not succeed.
    public enum StateWaitError: Error, Sendable, Equatable {
        /// The change failed.
        case failed
        /// It was still pending when the wait ended.
        case timedOut
    }

    /// The current and pending state after waiting up to `timeout` for a pending change (wraps `gst_element_get_state`).
    public func currentState(waitingUpTo timeout: ClockTime = .zero) -> (current: State, pending: State, result: Result<StateChangeResult, StateWaitError>) {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        let ret = gst_element_get_state(gstElement, &current, &pending, timeout.gst)
        let result: Result<StateChangeResult, StateWaitError>
        switch ret {
        case GST_STATE_CHANGE_SUCCESS: result = .success(.success)
        case GST_STATE_CHANGE_NO_PREROLL: result = .success(.noPreroll)
        case GST_STATE_CHANGE_ASYNC: result = .failure(.timedOut)
        default: result = .failure(.failed)
        }
        return (State(current), State(pending), result)
    }

    /// The current state, without waiting.
    public var state: State { currentState().current }

    /// Brings the element to its parent's state, e.g. after adding it to a running pipeline (wraps `gst_element_sync_state_with_parent`).
    public func syncStateWithParent() throws(GStreamerError) {
        guard gst_element_sync_state_with_parent(gstElement) != 0 else {
            throw .stateChangeFailed(element: name, target: parent?.state ?? .voidPending, error: nil, debug: "sync_state_with_parent")
        }
    }

    /// Brings a chain added to a running pipeline (in flow order, source first) to its parent's
    /// state from the sink end: a source started before the elements after it pushes into a stopped
    /// element, gets FLUSHING and stops for good, without an error message.
    public static func syncStatesWithParent(_ chain: [Element]) throws(GStreamerError) {
        for element in chain.reversed() { try element.syncStateWithParent() }
    }

    /// Keeps the element's state from following its parent's (wraps `gst_element_set_locked_state`).
    public var isStateLocked: Bool {
        get { gst_element_is_locked_state(gstElement) != 0 }
        set { gst_element_set_locked_state(gstElement, newValue ? 1 : 0) }
    }

    // MARK: Hierarchy

    /// The bin that contains this element, if any (wraps `gst_object_get_parent`).
    public var parent: Element? {
        guard let parent = gst_object_get_parent(gstObject) else { return nil }
        // gst_object_get_parent: transfer full.
        return Element(adopting: parent)
    }

    // MARK: Pads and links

    /// An always-present pad such as "src" or "sink" (wraps `gst_element_get_static_pad`).
    public func staticPad(_ name: String) throws(GStreamerError) -> Pad {
        guard let pad = gst_element_get_static_pad(gstElement, name) else { throw .noSuchPad(element: self.name, pad: name) }
        return Pad(adopting: UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GstObject.self))
    }

    /// Requests a pad from a template such as "sink_%u" (wraps `gst_element_request_pad_simple`); give it back with `releaseRequestPad(_:)`.
    public func requestPad(_ templateName: String) throws(GStreamerError) -> Pad {
        guard let pad = gst_element_request_pad_simple(gstElement, templateName) else { throw .noSuchPad(element: name, pad: templateName) }
        return Pad(adopting: UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GstObject.self))
    }

    /// Gives back a pad from `requestPad(_:)` (wraps `gst_element_release_request_pad`).
    public func releaseRequestPad(_ pad: Pad) {
        gst_element_release_request_pad(gstElement, pad.gstPad)
    }

    /// Adds a pad, typically a ghost pad on a bin (wraps `gst_element_add_pad`).
    public func addPad(_ pad: Pad) throws(GStreamerError) {
        guard gst_element_add_pad(gstElement, pad.gstPad) != 0 else {
            throw .failed("Cannot add pad '\(pad.name)' to '\(name)': the name is taken or the pad has a parent.")
        }
    }

    /// Removes a pad (wraps `gst_element_remove_pad`).
    public func removePad(_ pad: Pad) throws(GStreamerError) {
        guard gst_element_remove_pad(gstElement, pad.gstPad) != 0 else { throw .noSuchPad(element: name, pad: pad.name) }
    }

    /// All pads currently on the element.
    public var pads: [Pad] {
        var result: [Pad] = []
        GST_OBJECT_LOCK_HELD(gstObject) {
            var node = gstElement.pointee.pads
            while let current = node {
                if let data = current.pointee.data {
                    result.append(Pad(retaining: data.assumingMemoryBound(to: GstObject.self)))
                }
                node = current.pointee.next
            }
        }
        return result
    }

    /// Links a free source pad of this element to a compatible sink pad of `downstream`,
    /// optionally through `caps` (wraps `gst_element_link_pads_filtered`); returns `downstream` for chaining.
    @discardableResult
    public func link(to downstream: Element, caps: Caps? = nil) throws(GStreamerError) -> Element {
        if gst_element_link_pads_filtered(gstElement, nil, downstream.gstElement, nil, caps?.gstCaps) != 0 { return downstream }
        throw .linkFailed(diagnoseLinkFailure(to: downstream, caps: caps))
    }

    /// Links each element of `chain` to the next, in order (wraps `gst_element_link_pads_filtered` per pair).
    public static func link(_ chain: [Element]) throws(GStreamerError) {
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { try upstream.link(to: downstream) }
    }

    /// Links the named pads (wraps `gst_element_link_pads_full`).
    public func link(pad sourcePad: String, to downstream: Element, pad sinkPad: String) throws(GStreamerError) {
        if gst_element_link_pads_full(gstElement, sourcePad, downstream.gstElement, sinkPad, GST_PAD_LINK_CHECK_DEFAULT) != 0 { return }
        let source = try staticPad(sourcePad)
        let sink = try downstream.staticPad(sinkPad)
        try source.link(to: sink)
    }

    /// Unlinks all pads between this element and `downstream` (wraps `gst_element_unlink`).
    public func unlink(from downstream: Element) { gst_element_unlink(gstElement, downstream.gstElement) }

    /// Works out why a link failed, for a typed error.
    private func diagnoseLinkFailure(to downstream: Element, caps: Caps?) -> PadLinkError {
        let sourceName = "\(name):src", sinkName = "\(downstream.name):sink"
        guard let parentA = parent, let parentB = downstream.parent, parentA.isSame(as: parentB) else {
            return PadLinkError(reason: .wrongHierarchy, source: sourceName, sink: sinkName)
        }
        let sources = pads.filter { $0.direction == .source }
        guard let source = sources.first(where: { !$0.isLinked }) ?? sources.first else {
            return PadLinkError(reason: .noPad, source: sourceName, sink: sinkName)
        }
        if source.isLinked { return PadLinkError(reason: .wasLinked, source: "\(name):\(source.name)", sink: sinkName) }
        let sinks = downstream.pads.filter { $0.direction == .sink }
        if !sinks.isEmpty, sinks.allSatisfy(\.isLinked) {
            return PadLinkError(reason: .wasLinked, source: "\(name):\(source.name)", sink: "\(downstream.name):\(sinks[0].name)")
        }
        // Same bin, free pads on both sides: what is left is the format (or a refusal when the
        // formats do meet, which gst_element_link cannot tell apart).
        var sourceCaps = source.queryCaps()
        if let caps { sourceCaps = sourceCaps.intersect(caps) }
        if let sink = sinks.first(where: { !$0.isLinked }), sourceCaps.canIntersect(sink.queryCaps()) {
            return PadLinkError(reason: .refused, source: "\(name):\(source.name)", sink: "\(downstream.name):\(sink.name)")
        }
        return PadLinkError(reason: .noFormat, source: "\(name):\(source.name) (\(sourceCaps))", sink: sinkName)
    }

    // MARK: Time

    /// The clock the element uses, if any (wraps `gst_element_get_clock`).
    public var clock: Clock? {
        guard let clock = gst_element_get_clock(gstElement) else { return nil }
        return Clock(adopting: UnsafeMutableRawPointer(clock).assumingMemoryBound(to: GstObject.self))
    }

    /// The clock time at which the element's running time is zero (wraps `gst_element_get_base_time`).
    public var baseTime: ClockTime? { ClockTime(raw: gst_element_get_base_time(gstElement)) }

    /// The element's running time now: clock time minus base time (wraps `gst_element_get_current_running_time`).
    public var currentRunningTime: ClockTime? { ClockTime(raw: gst_element_get_current_running_time(gstElement)) }

    // MARK: Queries and events

    /// The stream position (wraps `gst_element_query_position` in TIME).
    public func position() -> ClockTime? {
        var value: gint64 = -1
        guard gst_element_query_position(gstElement, GST_FORMAT_TIME, &value) != 0 else { return nil }
        return ClockTime(signed: Int64(value))
    }

    /// The stream duration (wraps `gst_element_query_duration` in TIME).
    public func duration() -> ClockTime? {
        var value: gint64 = -1
        guard gst_element_query_duration(gstElement, GST_FORMAT_TIME, &value) != 0 else { return nil }
        return ClockTime(signed: Int64(value))
    }

    /// The latency of the element or pipeline: whether it is live, and min/max (wraps a LATENCY query).
    public func latency() throws(GStreamerError) -> Latency {
        let query = gst_query_new_latency()
        defer { gst_query_unref(query) }
        guard gst_element_query(gstElement, query) != 0 else { throw .queryFailed(element: name, query: "latency") }
        var live: gboolean = 0
        var minimum: GstClockTime = 0, maximum: GstClockTime = 0
        gst_query_parse_latency(query, &live, &minimum, &maximum)
        return Latency(isLive: live != 0, minimum: ClockTime(raw: minimum) ?? .zero, maximum: ClockTime(raw: maximum))
    }

    /// Answers LATENCY queries at this element's `src` pad in its place: what is upstream of its `sink`
    /// pad plus `held()`, or the element's own answer while `held()` is nil. Keep the returned probe.
    /// Safe inside the probe: the query goes upstream from the sink pad, not back through `src`.
    public func answerLatency(adding held: @escaping @Sendable () -> ClockTime?) throws(GStreamerError) -> PadProbe? {
        let input = try staticPad("sink")
        return try staticPad("src").addProbe(.queryUpstream) { info in
            guard let query = info.query, query.isLatency, let held = held(), let upstream = input.peerLatency() else { return .ok }
            query.answerLatency(live: upstream.isLive, min: upstream.minimum + held, max: upstream.maximum.map { $0 + held })
            return .handled
        }
    }

    /// Sends an event into the element (wraps `gst_element_send_event`, which takes the event).
    public func send(_ event: Event) throws(GStreamerError) {
        guard gst_element_send_event(gstElement, event.takeForTransfer()) != 0 else {
            throw .eventNotHandled(element: name, event: event.typeName)
        }
    }

    /// Seeks to `position` with a flushing, key-unit-free, accurate seek at `rate` (wraps `gst_element_seek`).
    public func seek(to position: ClockTime, rate: Double = 1.0, accurate: Bool = true) throws(GStreamerError) {
        var flags = GST_SEEK_FLAG_FLUSH.rawValue
        if accurate { flags |= GST_SEEK_FLAG_ACCURATE.rawValue }
        guard gst_element_seek(gstElement, rate, GST_FORMAT_TIME, GstSeekFlags(rawValue: flags),
                               GST_SEEK_TYPE_SET, gint64(position.nanoseconds), GST_SEEK_TYPE_NONE, -1) != 0 else {
            throw .eventNotHandled(element: name, event: "seek to \(position)")
        }
    }

    /// Tells the pipeline that the element's latency changed, so it recalculates it (wraps
    /// `gst_element_post_message` with `gst_message_new_latency`).
    public func postLatencyMessage() {
        gst_element_post_message(gstElement, gst_message_new_latency(gstObject))
    }

    /// Posts a message on the element's bus (wraps `gst_element_post_message`).
    public func postApplicationMessage(_ structure: Structure) {
        let message = gst_message_new_application(gstObject, structure.copyForTransfer())
        gst_element_post_message(gstElement, message)
    }
}

/// A latency query's answer.
public struct Latency: Sendable, Hashable {
    /// True when a live source is upstream.
    public var isLive: Bool
    /// The minimum latency.
    public var minimum: ClockTime
    /// The maximum latency; nil for unlimited.
    public var maximum: ClockTime?
}

/// Runs `body` while holding the object's lock (GST_OBJECT_LOCK/UNLOCK are macros over `g_mutex_lock`).
func GST_OBJECT_LOCK_HELD(_ object: UnsafeMutablePointer<GstObject>, _ body: () -> Void) {
    g_mutex_lock(&object.pointee.lock)
    defer { g_mutex_unlock(&object.pointee.lock) }
    body()
}

// Thread-safe like every GstObject wrapper (see Object).
extension Element: @unchecked Sendable {}
