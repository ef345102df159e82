import CGStreamer

/// An element the application pulls data from (`appsink`).
public final class AppSink: Element {
    override class var gType: GType? { gst_app_sink_get_type() }

    var gstAppSink: UnsafeMutablePointer<GstAppSink> { pointer(as: GstAppSink.self) }

    /// Makes an appsink (wraps `gst_element_factory_make("appsink")`).
    public static func make(name: String? = nil) throws(GStreamerError) -> AppSink {
        try ElementFactory.make("appsink", as: AppSink.self, name: name)
    }

    /// Accepts only `caps`, keeps at most `maxBuffers` samples (0 = unlimited), dropping the
    /// oldest when `drop` is set, and syncs to the clock or not.
    public func configure(caps: Caps?, maxBuffers: Int, drop: Bool, sync: Bool) throws(GStreamerError) {
        if let caps { try set("caps", caps) }
        try set("max-buffers", maxBuffers)
        try set("drop", drop)
        try set("sync", sync)
    }

    /// Waits up to `timeout` for the next sample; nil on timeout or at end of stream (wraps `gst_app_sink_try_pull_sample`).
    public func pull(timeout: ClockTime) -> Sample? {
        gst_app_sink_try_pull_sample(gstAppSink, timeout.gst).map(Sample.init(adopting:))
    }

    /// Waits up to `timeout` for the preroll sample (wraps `gst_app_sink_try_pull_preroll`).
    public func pullPreroll(timeout: ClockTime) -> Sample? {
        gst_app_sink_try_pull_preroll(gstAppSink, timeout.gst).map(Sample.init(adopting:))
    }

    /// True once end of stream has been reached and every sample pulled (wraps `gst_app_sink_is_eos`).
    public var isEndOfStream: Bool { gst_app_sink_is_eos(gstAppSink) != 0 }

    /// Delivers every sample to `body` on the streaming thread as it arrives ("new-sample"
    /// signal with `emit-signals`); `body` must not block. Drop the token to stop.
    public func onNewSample(_ body: @escaping @Sendable (Sample) -> Void) throws(GStreamerError) -> SignalHandler {
        try set("emit-signals", true)
        return SignalHandler.connect(self, signal: "new-sample", handler: SampleSignalBox(body),
                                     callback: unsafeBitCast(newSampleTrampoline, to: GCallback.self))
    }
}

/// The boxed closure behind `onNewSample`.
final class SampleSignalBox: Sendable {
    let body: @Sendable (Sample) -> Void
    init(_ body: @escaping @Sendable (Sample) -> Void) { self.body = body }
}

private let newSampleTrampoline: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> GstFlowReturn = { sink, userData in
    guard let sink, let userData else { return GST_FLOW_ERROR }
    // "new-sample" only announces the sample; pulling it is the handler's job (transfer full).
    guard let sample = gst_app_sink_try_pull_sample(sink, 0) else { return GST_FLOW_OK }
    Unmanaged<SampleSignalBox>.fromOpaque(userData).takeUnretainedValue().body(Sample(adopting: sample))
    return GST_FLOW_OK
}

// Thread-safe like every GstObject wrapper (see Object).
extension AppSink: @unchecked Sendable {}
