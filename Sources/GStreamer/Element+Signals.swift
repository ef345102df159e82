import CGStreamer

/// The signals the engine listens to: pads that appear, requests it answers, properties that change.
extension Element {
    /// Runs `body` for each pad added later, e.g. decodebin's outputs (the "pad-added" signal).
    public func onPadAdded(_ body: @escaping @Sendable (Pad) -> Void) -> SignalHandler {
        SignalHandler.connect(self, signal: "pad-added", handler: PadSignalBox(body), callback: unsafeBitCast(padAddedTrampoline, to: GCallback.self))
    }

    /// Runs `body` with each jitter buffer rtpbin makes for a new stream ("new-jitterbuffer"; also
    /// webrtcbin's rtpbin), on the streaming thread, before its first packet.
    public func onNewJitterBuffer(_ body: @escaping @Sendable (Element) -> Void) -> SignalHandler {
        SignalHandler.connect(self, signal: "new-jitterbuffer", handler: ElementSignalBox(body), callback: unsafeBitCast(newJitterBufferTrampoline, to: GCallback.self))
    }

    /// Runs `body` with each element added anywhere inside this bin, its children's children too
    /// ("deep-element-added"; e.g. the srtpdec and dtlsdec webrtcbin makes for a transport), on
    /// the thread that added it.
    public func onDeepElementAdded(_ body: @escaping @Sendable (Element) -> Void) -> SignalHandler {
        SignalHandler.connect(self, signal: "deep-element-added", handler: ElementSignalBox(body), callback: unsafeBitCast(deepElementAddedTrampoline, to: GCallback.self))
    }

    /// Emits an action signal that takes no argument, e.g. srtpdec's "clear-keys".
    public func emit(_ signal: String) {
        cgst_emit(rawPointer, signal)
    }

    /// Answers a signal that asks for caps by a 32-bit number, e.g. srtpdec's "request-key" (an
    /// SSRC it has no key for); `body` runs on the streaming thread, nil answers "none".
    public func onCapsRequest(_ signal: String, _ body: @escaping @Sendable (UInt32) -> Caps?) -> SignalHandler {
        SignalHandler.connect(self, signal: signal, handler: CapsRequestBox(body), callback: unsafeBitCast(capsRequestTrampoline, to: GCallback.self))
    }
}

/// The boxed closure behind `onPadAdded`.
final class PadSignalBox: Sendable {
    let body: @Sendable (Pad) -> Void
    init(_ body: @escaping @Sendable (Pad) -> Void) { self.body = body }
}

private let padAddedTrampoline: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, gpointer?) -> Void = { _, pad, userData in
    guard let pad, let userData else { return }
    let box = Unmanaged<PadSignalBox>.fromOpaque(userData).takeUnretainedValue()
    box.body(Pad(retaining: UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GstObject.self)))
}

/// The boxed closure behind `onNewJitterBuffer`.
final class ElementSignalBox: Sendable {
    let body: @Sendable (Element) -> Void
    init(_ body: @escaping @Sendable (Element) -> Void) { self.body = body }
}

// rtpbin's "new-jitterbuffer": (rtpbin, jitterbuffer, session, ssrc, user data).
private let newJitterBufferTrampoline: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstElement>?, guint, guint, gpointer?) -> Void = { _, element, _, _, userData in
    guard let element, let userData else { return }
    let box = Unmanaged<ElementSignalBox>.fromOpaque(userData).takeUnretainedValue()
    box.body(Element(retaining: UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)))
}

// GstBin's "deep-element-added": (bin, sub-bin, element, user data).
private let deepElementAddedTrampoline: @convention(c) (UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstBin>?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { _, _, element, userData in
    guard let element, let userData else { return }
    let box = Unmanaged<ElementSignalBox>.fromOpaque(userData).takeUnretainedValue()
    box.body(Element(retaining: UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)))
}

/// The boxed closure behind `onCapsRequest`.
final class CapsRequestBox: Sendable {
    let body: @Sendable (UInt32) -> Caps?
    init(_ body: @escaping @Sendable (UInt32) -> Caps?) { self.body = body }
}

private let capsRequestTrampoline: @convention(c) (UnsafeMutablePointer<GstElement>?, guint, gpointer?) -> UnsafeMutablePointer<GstCaps>? = { _, number, userData in
    guard let userData, let caps = Unmanaged<CapsRequestBox>.fromOpaque(userData).takeUnretainedValue().body(UInt32(number)) else { return nil }
    // The signal's return is transfer full: the caller gets a reference of its own.
    return UnsafeMutablePointer(mutating: gst_caps_ref(caps.gstCaps))
}

extension Object {
    /// Runs `body` each time `property` changes ("notify::PROPERTY"), on the thread that changed it.
    public func onNotify(_ property: String, _ body: @escaping @Sendable () -> Void) -> SignalHandler {
        SignalHandler.connect(self, signal: "notify::\(property)", handler: NotifyBox(body), callback: unsafeBitCast(notifyTrampoline, to: GCallback.self))
    }
}

/// The boxed closure behind `onNotify`.
final class NotifyBox: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private let notifyTrampoline: @convention(c) (gpointer?, UnsafeMutablePointer<GParamSpec>?, gpointer?) -> Void = { _, _, userData in
    guard let userData else { return }
    Unmanaged<NotifyBox>.fromOpaque(userData).takeUnretainedValue().body()
}
