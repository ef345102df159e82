import CGStreamer

/// A top-level bin with a clock and a bus (`GstPipeline`).
public final class Pipeline: Bin {
    override class var gType: GType? { gst_pipeline_get_type() }

    var gstPipeline: UnsafeMutablePointer<GstPipeline> { pointer(as: GstPipeline.self) }

    /// A new, empty pipeline (wraps `gst_pipeline_new`).
    public convenience init(name: String? = nil) throws(GStreamerError) {
        try GStreamer.initialize()
        // gst_pipeline_new: transfer floating.
        self.init(retaining: UnsafeMutableRawPointer(gst_pipeline_new(name)).assumingMemoryBound(to: GstObject.self))
    }

    /// Builds a pipeline from a gst-launch-1.0 description (wraps `gst_parse_launch_full`).
    ///
    /// Throws `missingElement` (with the Debian package) when an element is not installed and
    /// `parseFailed` for any other mistake; never returns a half-built pipeline.
    public static func parse(_ description: String, name: String? = nil) throws(GStreamerError) -> Pipeline {
        try GStreamer.initialize()
        let context = gst_parse_context_new()
        defer { gst_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>?
        let element = gst_parse_launch_full(description, context, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let missing = gst_parse_context_get_missing_elements(context), let first = missing.pointee {
            defer { g_strfreev(missing) }
            if let element { gst_object_unref(element) }
            if let error { g_error_free(error) }
            let name = String(cString: first)
            throw .missingElement(name, package: DebianPackage.providing(element: name))
        }
        if let failure = GLibError(consuming: error) {
            if let element { gst_object_unref(element) }
            throw .parseFailed(description: description, error: failure)
        }
        guard let element else {
            throw .parseFailed(description: description, error: GLibError(domain: "gst-parse-error-quark", code: 0, message: "empty result"))
        }
        let object = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)
        if g_type_is_a(cgst_object_type(object), gst_pipeline_get_type()) != 0 {
            // gst_parse_launch: transfer floating.
            let pipeline = Pipeline(retaining: object)
            if let name { gst_object_set_name(object, name) }
            return pipeline
        }
        // A single element: put it in a pipeline of its own.
        let pipeline = try Pipeline(name: name)
        let single = Element(retaining: object)
        try pipeline.add(single)
        return pipeline
    }

    /// The pipeline's bus (wraps `gst_pipeline_get_bus`).
    public var bus: Bus {
        // gst_pipeline_get_bus: transfer full.
        Bus(adopting: UnsafeMutableRawPointer(gst_pipeline_get_bus(gstPipeline)).assumingMemoryBound(to: GstObject.self))
    }

    /// Forces the pipeline to use `clock`, or nil to go back to automatic selection (wraps `gst_pipeline_use_clock` / `gst_pipeline_auto_clock`).
    ///
    /// Using the system clock keeps a removable source (pulsesrc) from becoming the clock and
    /// posting CLOCK_LOST when it goes.
    public func useClock(_ clock: Clock?) {
        if let clock {
            gst_pipeline_use_clock(gstPipeline, clock.pointer(as: GstClock.self))
        } else {
            gst_pipeline_auto_clock(gstPipeline)
        }
    }

    /// The clock the pipeline runs on (wraps `gst_pipeline_get_pipeline_clock`).
    public var pipelineClock: Clock {
        Clock(adopting: UnsafeMutableRawPointer(gst_pipeline_get_pipeline_clock(gstPipeline)).assumingMemoryBound(to: GstObject.self))
    }

    /// Starts the running time at the pipeline clock's time now and keeps it running, unpaused,
    /// through every later state change: the pipeline no longer picks a base time on its way to
    /// PLAYING (start time NONE), so each element is given this one with its next state change,
    /// before the clock reaches it. Call it before each start from NULL or READY.
    ///
    /// Left to itself, a pipeline hands its children the clock before their new base time
    /// (gstpipeline.c, PAUSED→PLAYING, 1.22 and main): a live aggregator woken in between (the
    /// latency query wakes it) times its output against base time 0, finds every buffer late and
    /// sends it at once; measured, up to 2.4 s of silence in a burst, after which everything pushed
    /// at the running time lay behind the mixer's output and was dropped (WORKAROUNDS §29).
    public func startRunningTimeNow() {
        let now = pipelineClock.time
        gst_element_set_start_time(gstElement, ClockTime.none)
        gst_element_set_base_time(gstElement, now.gst)
    }

    /// A fixed latency instead of the one computed from the elements; nil goes back to computed (wraps `gst_pipeline_set_latency`).
    public var configuredLatency: ClockTime? {
        get { ClockTime(raw: gst_pipeline_get_latency(gstPipeline)) }
        set { gst_pipeline_set_latency(gstPipeline, newValue.raw) }
    }
}

// Thread-safe like every GstObject wrapper (see Object).
extension Pipeline: @unchecked Sendable {}
