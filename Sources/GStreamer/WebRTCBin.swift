import CGStreamer
import Dispatch

/// webrtcbin's offer/answer API: its action signals ("create-offer", "set-local-description",
/// "set-remote-description"), each answered through a GstPromise, and the states it notifies.
/// Descriptions are SDP text; the boxed GstWebRTCSessionDescription stays inside the shim.
public struct WebRTCBin: Sendable {
    /// The webrtcbin element.
    public let element: Element

    /// Which side of the exchange a description is (GstWebRTCSDPType).
    public enum DescriptionType: Int32, Sendable {
        case offer = 1
        case answer = 3
    }

    /// How long a request may wait for webrtcbin's answer: it answers from its own task within
    /// milliseconds while running, and never when that task is not running.
    public static let answerTimeout = ClockTime.seconds(5)

    /// Wraps a webrtcbin; throws `wrongType` for any other element.
    public init(_ element: Element) throws(GStreamerError) {
        guard element.factoryName == "webrtcbin" else {
            throw .wrongType(object: element.name, expected: "webrtcbin", actual: element.factoryName)
        }
        self.element = element
    }

    /// Asks for an offer of what is linked into the element (one m-line per linked sink pad); returns its SDP.
    public func createOffer() throws(GStreamerError) -> String { try create(.offer) }

    /// Asks for an answer to the remote offer set before; returns its SDP.
    public func createAnswer() throws(GStreamerError) -> String { try create(.answer) }

    private func create(_ type: DescriptionType) throws(GStreamerError) -> String {
        let (signal, field) = type == .offer ? ("create-offer", "offer") : ("create-answer", "answer")
        let reply = try request(signal) { promise in cgst_webrtc_create(element.gstElement, signal, promise) }
        guard let reply, let value = gst_structure_get_value(reply.pointer, field),
              let text = cgst_webrtc_description_text(g_value_get_boxed(value)) else {
            throw .failed("\(element.name): \(signal) answered without an \(field)")
        }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Makes `sdp` the local description (the offer just created).
    public func setLocalDescription(_ sdp: String, type: DescriptionType) throws(GStreamerError) {
        try setDescription("set-local-description", sdp, type: type)
    }

    /// Makes `sdp` the remote description (the other side's answer); ICE starts with its candidates.
    public func setRemoteDescription(_ sdp: String, type: DescriptionType) throws(GStreamerError) {
        try setDescription("set-remote-description", sdp, type: type)
    }

    /// The local description with the candidates gathered so far; nil before one is set.
    public var localDescription: String? {
        guard let spec = cgst_object_find_property(element.rawPointer, "local-description") else { return nil }
        let gvalue = OwnedValue(type: spec.pointee.value_type)
        g_object_get_property(element.g_object, "local-description", &gvalue.value)
        guard let text = cgst_webrtc_description_text(g_value_get_boxed(&gvalue.value)) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Runs `body` with the property's new nick each time one of `properties` (enum properties such
    /// as "connection-state" or "ice-gathering-state") changes, on the thread that changed it.
    public func onChange(of properties: [String], _ body: @escaping @Sendable (_ property: String, _ nick: String) -> Void) -> [SignalHandler] {
        properties.map { property in
            let element = self.element
            return element.onNotify(property) { body(property, (try? element.enumNick(property)) ?? "unknown") }
        }
    }

    private func setDescription(_ signal: String, _ sdp: String, type: DescriptionType) throws(GStreamerError) {
        guard let description = cgst_webrtc_description_new(type.rawValue, sdp) else {
            throw .failed("\(element.name): \(signal): the description is not SDP webrtcbin can take")
        }
        defer { cgst_webrtc_description_free(description) }
        _ = try request(signal) { promise in cgst_webrtc_set_description(element.gstElement, signal, description, promise) }
    }

    /// Emits a request with a fresh promise and waits (bounded) for its reply; an "error" in the reply throws.
    private func request(_ signal: String, _ emit: (UnsafeMutablePointer<GstPromise>) -> Void) throws(GStreamerError) -> PromiseReply? {
        let answered = DispatchSemaphore(value: 0)
        let box = Unmanaged.passRetained(SemaphoreBox(answered)).toOpaque()
        guard let promise = gst_promise_new_with_change_func({ _, data in
            guard let data else { return }
            Unmanaged<SemaphoreBox>.fromOpaque(data).takeUnretainedValue().semaphore.signal()
        }, box, { data in
            guard let data else { return }
            Unmanaged<SemaphoreBox>.fromOpaque(data).release()
        }) else { throw .failed("\(element.name): no promise for \(signal)") }
        defer { gst_promise_unref(promise) }
        emit(promise)
        if answered.wait(timeout: .now() + .nanoseconds(Int(WebRTCBin.answerTimeout.nanoseconds))) == .timedOut {
            gst_promise_interrupt(promise)
            throw .failed("\(element.name): \(signal) was not answered within \(WebRTCBin.answerTimeout) (is the pipeline playing?)")
        }
        guard gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED else {
            throw .failed("\(element.name): \(signal) was interrupted or expired")
        }
        guard let structure = gst_promise_get_reply(promise) else { return nil }
        if let reason = Self.failure(in: structure) { throw .failed("\(element.name): \(signal) failed: \(reason)") }
        // The reply belongs to the promise: copied so it outlives it.
        return PromiseReply(gst_structure_copy(structure))
    }
}

extension WebRTCBin {
    /// Why a reply says its request failed, or nil when it does not. Any "error" field is a
    /// failure, whatever it holds: a reply whose error carries no GError (none of 1.22.0's sites
    /// send one, but the field is the contract) must not read as success.
    static func failure(in reply: UnsafePointer<GstStructure>) -> String? {
        guard let value = gst_structure_get_value(reply, "error") else { return nil }
        let error = value.pointee.g_type == g_error_get_type() ? g_value_get_boxed(value)?.assumingMemoryBound(to: GError.self) : nil
        guard let message = error?.pointee.message else { return "webrtcbin gave no reason (GST_DEBUG=webrtcbin:4 logs it)" }
        return String(cString: message)
    }
}

/// A copy of a promise's reply, freed with it.
private final class PromiseReply {
    let pointer: UnsafeMutablePointer<GstStructure>
    init(_ pointer: UnsafeMutablePointer<GstStructure>) { self.pointer = pointer }
    deinit { gst_structure_free(pointer) }
}

/// The semaphore a promise's change function signals.
private final class SemaphoreBox: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
}
