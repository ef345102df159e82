import CGStreamer
import Synchronization

/// An element the application pushes data into (`appsrc`).
public final class AppSource: Element {
    override class var gType: GType? { gst_app_src_get_type() }

    var gstAppSrc: UnsafeMutablePointer<GstAppSrc> { pointer(as: GstAppSrc.self) }

    /// The audio format declared by `configure(audio:…)`; pushes are checked against it.
    private let declared = Mutex<Configuration?>(nil)

    /// What to do with a push when the queue is full.
    public enum FullQueuePolicy: Sendable, Hashable {
        /// The push waits until there is room (`block=true`). Never use on a real-time thread.
        case block
        /// The new data is not queued; the push reports `.dropped` (nothing is lost silently).
        case dropNewest
        /// The oldest queued data is dropped to make room (`leaky-type=downstream`); the push reports `.queuedDroppingOldest`.
        case dropOldest
    }

    /// The queue limits; a zero limit is unlimited, but at least one must be set for a bounded queue.
    public struct QueueLimits: Sendable, Hashable {
        /// At most this many buffers.
        public var buffers: Int
        /// At most this many bytes.
        public var bytes: Int
        /// At most this much media time.
        public var time: ClockTime
        /// Limits by buffers, bytes and time.
        public init(buffers: Int = 0, bytes: Int = 0, time: ClockTime = .zero) {
            self.buffers = buffers; self.bytes = bytes; self.time = time
        }
    }

    /// How a push went.
    public enum PushOutcome: Sendable, Hashable {
        /// Queued.
        case queued
        /// Queued; the queue was full, so the oldest buffer was dropped.
        case queuedDroppingOldest
        /// Not queued: the queue was full (policy `.dropNewest`).
        case dropped
    }

    struct Configuration: Sendable {
        var format: AudioFormat
        var limits: QueueLimits
        var whenFull: FullQueuePolicy
    }

    /// Makes an appsrc (wraps `gst_element_factory_make("appsrc")`).
    public static func make(name: String? = nil) throws(GStreamerError) -> AppSource {
        try ElementFactory.make("appsrc", as: AppSource.self, name: name)
    }

    /// Declares raw audio in `format`, timed in TIME format, and bounds the queue.
    ///
    /// `isLive` makes downstream treat it as a live source (an audiomixer then never waits for it);
    /// latency is reported as min 0 / max unlimited so a mixer with other live inputs can always
    /// configure its latency; `doTimestamp` stamps buffers pushed without a PTS with the running time.
    public func configure(audio format: AudioFormat, isLive: Bool, doTimestamp: Bool,
                          limits: QueueLimits = QueueLimits(time: .milliseconds(200)),
                          whenFull: FullQueuePolicy = .dropOldest) throws(GStreamerError) {
        guard format.interleaved else {
            throw .invalidPropertyValue(object: name, property: "caps", reason: "only interleaved audio can be pushed")
        }
        try set("caps", format.caps)
        try set("format", "time")
        try set("is-live", isLive)
        try set("do-timestamp", doTimestamp)
        try set("min-latency", .int(0))
        try set("max-latency", .int(-1))
        try set("max-buffers", .uint64(UInt64(limits.buffers)))
        try set("max-bytes", .uint64(UInt64(limits.bytes)))
        try set("max-time", .time(limits.time))
        try set("block", whenFull == .block)
        try set("leaky-type", whenFull == .dropOldest ? "downstream" : "none")
        declared.withLock { $0 = Configuration(format: format, limits: limits, whenFull: whenFull) }
    }

    /// The declared audio format, if any.
    public var audioFormat: AudioFormat? { declared.withLock { $0?.format } }

    /// Pushes interleaved 16-bit samples (wraps `gst_app_src_push_buffer`).
    ///
    /// `pts` nil lets `do-timestamp` stamp the buffer; the duration is computed from the
    /// sample count. Throws `.flow(.wrongFormat)` when the format is not S16 or the count is
    /// not a whole number of frames, and `.flow(...)` when the element refuses the data.
    @discardableResult
    public func push(_ samples: [Int16], pts: ClockTime? = nil, discontinuity: Bool = false) throws(GStreamerError) -> PushOutcome {
        try samples.withUnsafeBytes { bytes in Result { () throws(GStreamerError) in
            try push(bytes, format: .s16, sampleCount: samples.count, pts: pts, discontinuity: discontinuity)
        } }.get()
    }

    /// Pushes interleaved 32-bit float samples (wraps `gst_app_src_push_buffer`).
    @discardableResult
    public func push(_ samples: [Float], pts: ClockTime? = nil, discontinuity: Bool = false) throws(GStreamerError) -> PushOutcome {
        try samples.withUnsafeBytes { bytes in Result { () throws(GStreamerError) in
            try push(bytes, format: .f32, sampleCount: samples.count, pts: pts, discontinuity: discontinuity)
        } }.get()
    }

    /// Signals that no more data will come (wraps `gst_app_src_end_of_stream`).
    public func endOfStream() throws(GStreamerError) {
        if let error = FlowError(gst_app_src_end_of_stream(gstAppSrc).rawValue) { throw .flow(error) }
    }

    /// Buffers queued now (wraps `gst_app_src_get_current_level_buffers`).
    public var queuedBuffers: Int { Int(gst_app_src_get_current_level_buffers(gstAppSrc)) }
    /// Bytes queued now (wraps `gst_app_src_get_current_level_bytes`).
    public var queuedBytes: Int { Int(gst_app_src_get_current_level_bytes(gstAppSrc)) }
    /// Media time queued now (wraps `gst_app_src_get_current_level_time`).
    public var queuedTime: ClockTime { ClockTime(raw: gst_app_src_get_current_level_time(gstAppSrc)) ?? .zero }

    /// Called (on a streaming thread) when the queue runs low and more data is wanted ("need-data").
    public func onNeedData(_ body: @escaping @Sendable () -> Void) -> SignalHandler {
        SignalHandler.connect(self, signal: "need-data", handler: VoidSignalBox(body), callback: unsafeBitCast(needDataTrampoline, to: GCallback.self))
    }

    /// Called (on the pushing thread) when the queue is full ("enough-data").
    public func onEnoughData(_ body: @escaping @Sendable () -> Void) -> SignalHandler {
        SignalHandler.connect(self, signal: "enough-data", handler: VoidSignalBox(body), callback: unsafeBitCast(enoughDataTrampoline, to: GCallback.self))
    }

    private func push(_ bytes: UnsafeRawBufferPointer, format: SampleFormat, sampleCount: Int, pts: ClockTime?,
                      discontinuity: Bool) throws(GStreamerError) -> PushOutcome {
        guard let configuration = declared.withLock({ $0 }) ?? inferredConfiguration() else {
            throw .flow(.wrongFormat("'\(name)' has no fixed raw audio caps; call configure(audio:) first"))
        }
        let declaredFormat = configuration.format
        guard declaredFormat.format == format else {
            throw .flow(.wrongFormat("'\(name)' takes \(declaredFormat.format.rawValue) samples, not \(format.rawValue)"))
        }
        guard sampleCount > 0, sampleCount % declaredFormat.channels == 0 else {
            throw .flow(.wrongFormat("\(sampleCount) samples is not a whole number of \(declaredFormat.channels)-channel frames"))
        }
        let frames = sampleCount / declaredFormat.channels
        let full = isFull(configuration.limits)
        if full, configuration.whenFull == .dropNewest { return .dropped }

        guard let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil) else {
            throw .flow(.error)
        }
        gst_buffer_fill(buffer, 0, bytes.baseAddress, gsize(bytes.count))
        buffer.pointee.pts = pts.raw
        buffer.pointee.duration = ClockTime.frames(frames, rate: declaredFormat.rate).gst
        // DISCONT: a mixer places the buffer by its timestamp at once, instead of keeping a shift
        // under its alignment threshold (40 ms) contiguous with what came before (WORKAROUNDS §23).
        if discontinuity { buffer.pointee.mini_object.flags |= GST_BUFFER_FLAG_DISCONT.rawValue }
        // gst_app_src_push_buffer takes the buffer (transfer full).
        if let error = FlowError(gst_app_src_push_buffer(gstAppSrc, buffer).rawValue) { throw .flow(error) }
        return full && configuration.whenFull == .dropOldest ? .queuedDroppingOldest : .queued
    }

    /// The configuration read back from the element, for a wrapper that did not configure it.
    private func inferredConfiguration() -> Configuration? {
        guard let caps = try? caps("caps"), let format = caps.audioFormat, format.interleaved else { return nil }
        let limits = QueueLimits(buffers: Int((try? int("max-buffers")) ?? 0), bytes: Int((try? int("max-bytes")) ?? 0),
                                 time: ClockTime(nanoseconds: (try? uint64("max-time")) ?? 0))
        let policy: FullQueuePolicy = ((try? bool("block")) ?? false) ? .block
            : ((try? enumNick("leaky-type")) == "downstream" ? .dropOldest : .dropNewest)
        let configuration = Configuration(format: format, limits: limits, whenFull: policy)
        declared.withLock { $0 = configuration }
        return configuration
    }

    private func isFull(_ limits: QueueLimits) -> Bool {
        (limits.buffers > 0 && queuedBuffers >= limits.buffers)
            || (limits.bytes > 0 && queuedBytes >= limits.bytes)
            || (limits.time > .zero && queuedTime >= limits.time)
    }
}

/// The boxed closure behind a signal without arguments.
final class VoidSignalBox: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private let needDataTrampoline: @convention(c) (UnsafeMutablePointer<GstAppSrc>?, guint, gpointer?) -> Void = { _, _, userData in
    guard let userData else { return }
    Unmanaged<VoidSignalBox>.fromOpaque(userData).takeUnretainedValue().body()
}

private let enoughDataTrampoline: @convention(c) (UnsafeMutablePointer<GstAppSrc>?, gpointer?) -> Void = { _, userData in
    guard let userData else { return }
    Unmanaged<VoidSignalBox>.fromOpaque(userData).takeUnretainedValue().body()
}

// Thread-safe like every GstObject wrapper (see Object).
extension AppSource: @unchecked Sendable {}
