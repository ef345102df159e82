import ClassroomAudio
import Foundation
import GStreamer
import Logging
import PulseAudio
import Synchronization

/// The live classroom audio graph (DESIGN §3): inputs mixed by one `audiomixer`, the master
/// volume, a level meter and the WebRTC echo probe in front of the output; and, while a lease
/// records, the microphone chain through `webrtcdsp` to the uplink.
///
/// The pipeline runs for the whole class on the system clock, with a latency the engine sets, so
/// inputs and the microphone coming and going never change it; only an output underrun raises it. Every mutation is made by the caller
/// (the session controller serialises them); streaming-thread callbacks only touch atomics
/// and locked state.
public final class AudioEngine: Sendable {
    /// Tunables; the defaults are what the tests and the benchmark measure.
    public struct Configuration: Sendable {
        /// How long the mixer waits for late input: the jitter an input's pushes may have, and part
        /// of every mouth-to-ear path. The pushes do not need more (`AudioInput.lateness`: p99 1-2 ms
        /// through 20 mic cycles and 5 retargets, and for a peer kiosk to kiosk). It was 40 ms until
        /// what failed at 20 was found at its causes: a reopened stream an idle null sink held
        /// (`DeviceKeeper`, WORKAROUNDS §28), the mixer's silence the sink dropped (§35), a retarget
        /// test that judged moves from the ask, and the output sent back to 0 by a first input that
        /// came after the first timeout (§36). At 10 ms (50 ms of output latency) the device, engine
        /// and CLI passes drop no push with the streaming threads real-time; at normal priority it had
        /// dropped 327.
        public var mixerLatency: ClockTime = .milliseconds(10)
        /// How far a push without a timestamp may arrive from where the input's previous push ended
        /// and still continue it: as late as the mixer still takes it (its wait and the block it is
        /// making). A later push is re-anchored on arrival, a break said in `timelineResyncs`.
        public var pushTolerance: ClockTime { mixerLatency + EngineGraph.frameDuration }
        /// The sound server's buffer ahead of the device: adaptive unless fixed (`--output-buffer`).
        public var outputBuffer: OutputBufferSetting = .adaptive
        /// The pipeline's latency with an output buffer of `size`: the mix plays this long after the
        /// running time it is stamped with. The mixer's wait, one 10 ms block, and the output buffer.
        public func pipelineLatency(outputBuffer size: ClockTime) -> ClockTime {
            mixerLatency + EngineGraph.frameDuration + size
        }
        /// The pipeline latency the output opens with.
        public var pipelineLatency: ClockTime { pipelineLatency(outputBuffer: outputBuffer.initial) }
        /// How much audio an input may queue before the oldest is dropped.
        public var inputQueue: ClockTime = .milliseconds(200)
        /// The `media.role` of the output stream (from the session category).
        public var mediaRole: String = "video"
        /// The interval of the output and microphone level meters.
        public var levelInterval: ClockTime = .milliseconds(100)
        /// The shortest echo path the canceller is set up for: how much earlier than its capture
        /// timestamp the DSP treats each microphone frame.
        ///
        /// The echo path is the time from a sample being played (running time + output latency)
        /// to its echo being captured: speaker-to-mic distance plus whatever the devices' latency
        /// reports leave out. The canceller removes echo whose path lies from about 5 ms to about
        /// 50 ms above this value (WORKAROUNDS §12); the echo-path estimator moves it.
        public var echoPathCompensation: ClockTime = .zero
        /// How long after its capture time a microphone frame waits before the DSP processes it.
        ///
        /// webrtcdsp takes the far end for a frame from the echo probe when it processes the frame;
        /// the far end for an echo path of 5 ms reaches the probe about 5 ms after the frame's
        /// capture time (the mix reaches the probe about as late as the pipeline latency allows).
        /// A live microphone delivers a 10 ms frame 10 ms after its capture time anyway, so only
        /// files and pushed samples wait; a capture device's frames are not held.
        /// Nil: 10 ms. It delays their uplink by as much.
        public var echoReferenceWait: ClockTime?
        /// The SCHED_RR priority of the engine's streaming threads (`RealtimeThreads`); nil leaves them at normal priority.
        public var realtimePriority: Int32? = 4
        /// Defaults.
        public init() {}
    }

    /// Where the mix goes.
    public let output: OutputTarget
    /// The settings in force.
    public let configuration: Configuration

    let pipeline: Pipeline
    let mixer: Element
    let master: VolumeControl
    let probe: Element
    let outputSink: Element
    /// The output stream's life: the one owner of whether it may be touched, is corked or lost.
    let link: OutputLink
    /// The output buffer's size, and how underruns move it.
    public let outputBuffer: OutputBuffer
    /// Hears the sound server's underruns (pulsesink logs them, nothing else says so; nothing for
    /// other outputs) and holds what a raise of the output buffer needs while it is under way.
    let underrunWatch = UnderrunWatch()
    /// Keeps the echo probe's latency answer installed.
    let lookahead: PadProbe?
    /// Makes the sound-server output play the mixer's GAP buffers as the silence they hold
    /// (pulsesink writes nothing for them, and the server's stream runs dry; WORKAROUNDS §35).
    let gapsAsSilence: PadProbe?
    /// Unique per engine: webrtcdsp finds its probe by name in a process-wide list.
    let probeName: String
    /// Unique on the sound server (process and engine): the output stream's `EngineGraph.outputStreamKey`.
    let outputStreamID: String
    /// Moves the output stream: pulsesink 1.22 cannot do it safely (`PulseClient`, WORKAROUNDS §1).
    let soundServer = PulseClient(name: "classroom-audio")
    /// Gives the streaming threads real-time priority; nil when the configuration says not to.
    let realtime: RealtimeThreads?
    /// Moves the server acknowledged and did not carry out, asked again (`retargetOutput`; WORKAROUNDS §30).
    let movesAskedAgain = Atomic<Int>(0)
    /// How the output's clock is aligned (`AudioEngine+OutputAlignment`, WORKAROUNDS §34).
    let alignment = Mutex(OutputAlignmentState())
    let logger: Logger
    let state = Mutex(State())
    let eventObservers = ObserverRegistry<EngineEvent>()
    /// Not an `EngineEvent` case: adding one breaks every exhaustive switch over them.
    let echoPathObservers = ObserverRegistry<EchoPathEstimate>()
    /// Held across building or tearing down the microphone chain, so a check and its act are one step.
    let microphoneChange = Mutex(())

    struct State {
        var inputs: [String: AudioInput] = [:]
        var uplink: Uplink?
        var running = false
        /// The device the output stream was last moved to (nil: where the server put it); a reopen connects there.
        var outputDevice: String?
        /// The bus handler, from `start()` to `stop()`.
        var busSubscription: BusSubscription?
    }

    /// The application message `restart()` posts behind the stale errors.
    static let restartMarker = "classroom-engine-restarted"

    private static let instances = Atomic<Int>(0)

    /// Builds the graph (not started). Throws when an element is missing or the output cannot be made.
    public init(output: OutputTarget, configuration: Configuration = Configuration(), logger: Logger) throws(EngineError) {
        self.output = output
        self.configuration = configuration
        self.logger = logger
        let number = AudioEngine.instances.add(1, ordering: .relaxed).newValue
        probeName = "echo-probe-\(number)"
        let streamID = "\(getpid())-\(number)"
        outputStreamID = streamID
        outputBuffer = OutputBuffer(setting: configuration.outputBuffer)
        let built = try EngineError.wrap { () throws(GStreamerError) in
            try AudioEngine.buildOutputChain(output: output, configuration: configuration, probeName: "echo-probe-\(number)", streamID: streamID, number: number)
        }
        (pipeline, mixer, master, probe, outputSink) = built
        link = OutputLink(sink: outputSink, answersCaps: output.isSoundServer, caps: EngineGraph.outputFormat.caps)
        realtime = configuration.realtimePriority.map { RealtimeThreads(priority: $0, logger: logger) }
        if let realtime { pipeline.bus.onStreamingThreads { realtime.handle($0) } }
        // Latency 0 makes the probe serve the far end by timestamp, not 50 ms ahead (WORKAROUNDS §11).
        lookahead = (try? probe.staticPad("src"))?.addProbe(.queryUpstream) { info in
            guard let query = info.query, query.isLatency else { return .ok }
            query.answerLatency(live: true, min: .zero, max: nil)
            return .handled
        }
        gapsAsSilence = output.isSoundServer ? (try? outputSink.staticPad("sink"))?.addGapsAsSilence() : nil
    }

    private static func buildOutputChain(output: OutputTarget, configuration: Configuration, probeName: String, streamID: String, number: Int) throws(GStreamerError)
        -> (Pipeline, Element, VolumeControl, Element, Element) {
        let pipeline = try Pipeline(name: EngineGraph.pipeline(number))
        // A removable source (pulsesrc) must never become the clock: its removal would post CLOCK_LOST.
        pipeline.useClock(try Clock.system())
        pipeline.configuredLatency = configuration.pipelineLatency
        // force-live (construct-only): the mixer keeps producing, and never stalls, when inputs stop.
        let mixer = try ElementFactory.make("audiomixer", name: EngineGraph.mixer, properties: [
            "force-live": true,
            "latency": .time(configuration.mixerLatency),
            "output-buffer-duration": .time(EngineGraph.frameDuration),
            "ignore-inactive-pads": true,
        ])
        let format = try ElementFactory.make("capsfilter", name: EngineGraph.mixFormat, properties: ["caps": .caps(EngineGraph.outputFormat.caps)])
        let master = try VolumeControl(name: EngineGraph.masterVolume, initial: 1.0)
        let level = try ElementFactory.make("level", name: EngineGraph.outputLevel, properties: ["interval": .time(configuration.levelInterval)])
        let probe = try ElementFactory.make("webrtcechoprobe", name: probeName)
        let sinkChain = try output.makeElements(mediaRole: configuration.mediaRole, buffer: configuration.outputBuffer.initial, streamID: streamID)
        let chain = [mixer, format, master.element, level, probe] + sinkChain
        try pipeline.addLinked(chain)
        guard let sink = sinkChain.last else { throw .failed("the output has no sink") }
        return (pipeline, mixer, master, probe, sink)
    }

    // MARK: Running

    /// Starts the graph. With a sound-server output, fails when no server answers.
    public func start() throws(EngineError) {
        link.starting()
        let firstError = FirstFailure<(GLibError, String?)>()
        let subscription = pipeline.bus.subscribe { [weak self] message in
            firstError.record(message)
            self?.handle(message)
        }
        state.withLock { $0.busSubscription = subscription }
        do {
            try goPlaying(reporting: firstError)
        } catch {
            cancelBusSubscription()
            link.closed(reopening: true)
            throw error
        }
        state.withLock { $0.running = true }
        outputBuffer.opened()
        watchUnderruns()
        logger.info("audio engine started", metadata: ["output": "\(output)", "latency": "\(outputLatency)", "output buffer": "\(outputBuffer.size)"])
    }

    /// Sets the pipeline to PLAYING and waits (bounded) until it plays; on failure the pipeline is
    /// back in NULL and the error names the bus's reason. The output opens aligned for its server
    /// and relaxes once settled (`AudioEngine+OutputAlignment`).
    private func goPlaying(reporting firstError: FirstFailure<(GLibError, String?)>) throws(EngineError) {
        chooseAlignment()
        // Its first input's first buffer must not send the output back to 0 (WORKAROUNDS §36).
        try EngineError.wrap { () throws(GStreamerError) in try mixer.fixAggregatorStartAtZero() }
        do {
            // The mixer gets its base time before the clock (WORKAROUNDS §29).
            pipeline.startRunningTimeNow()
            // Waits (bounded) until it really plays: tearing a pipeline down while it is still on
            // its way up, with inputs already pushing, deadlocked once in a full parallel test run.
            try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        } catch {
            // The reason is on the bus (e.g. "Failed to connect: Connection refused"); give it a moment to arrive.
            let reason = firstError.wait(upTo: .milliseconds(500))
            _ = try? pipeline.setState(.null)
            throw .gstreamer(.stateChangeFailed(element: pipeline.name, target: .playing, error: reason?.0, debug: reason?.1))
        }
        relaxAlignmentLater()
    }

    /// Takes the graph down (NULL) without forgetting it, because its output cannot play: the
    /// microphone chain goes, inputs keep their handles and refuse pushes with `notRunning`
    /// until `restart()`.
    public func suspend() throws(EngineError) {
        guard isRunning else { throw .notRunning }
        disconnectMicrophone()
        link.closing(discardingErrors: true)
        tearDown()
        link.closed(reopening: true)
    }

    /// Brings the graph up again after its output failed (the sound server died and is back):
    /// the microphone chain is taken down, the pipeline is cycled through NULL so every element
    /// reconnects, and it plays again. Inputs, their handles and their volumes survive; pushes
    /// made meanwhile were refused with `EngineError.notRunning`. Throws when it still cannot play.
    public func restart() throws(EngineError) {
        if pipeline.state != .null { try suspend() }
        // NULL flushed the bus; in READY it carries messages again, and everything the old
        // output said is ahead of the marker.
        _ = try? pipeline.setState(.ready)
        if let marker = try? Structure(name: Self.restartMarker) { pipeline.bus.post(application: marker) }
        // Running time starts again from zero: the volume ramps' timelines restart with it.
        master.hold()
        for input in inputs { input.duck?.hold() }
        let firstError = FirstFailure<(GLibError, String?)>()
        let watch = pipeline.bus.subscribe { message in firstError.record(message) }
        defer { watch.cancel() }
        link.starting()
        do {
            try goPlaying(reporting: firstError)
        } catch {
            link.closed(reopening: true)
            throw error
        }
        outputBuffer.opened()
        logger.notice("audio engine restarted", metadata: ["output": "\(output)"])
    }

    /// Stops the graph. A WAV output is finalised first (its header written) so nothing is lost.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running
        }
        if wasRunning, case .wavFile = output { finalizeOutput() }
        link.closing(discardingErrors: false)
        tearDown()
        link.closed(reopening: false)
        cancelBusSubscription()
    }

    /// Sets the pipeline to NULL, output sink first: a sink on its way down holds the mixer in
    /// preroll, which deadlocked a teardown (WORKAROUNDS §4). The caller has closed the link.
    private func tearDown() {
        underrunWatch.takeForTeardown()?.stop()
        outputSink.isStateLocked = true
        link.takingDown { _ = try? outputSink.setState(.null) }
        _ = try? pipeline.setState(.null)
        outputSink.isStateLocked = false
    }

    /// True between `start()` and `stop()`.
    public var isRunning: Bool { state.withLock { $0.running } }

    /// The engine's running time now (clock time minus base time).
    public var runningTime: ClockTime? { pipeline.currentRunningTime }

    /// The output latency: how long after the running time it is stamped with a sample is played.
    /// Constant but for an output underrun, which raises it (`EngineEvent.outputUnderrun`).
    public var outputLatency: ClockTime { configuration.pipelineLatency(outputBuffer: outputBuffer.size) }

    /// How much earlier the DSP treats microphone frames (see `Configuration.echoPathCompensation`).
    public var echoPathCompensation: ClockTime { configuration.echoPathCompensation }

    /// How long a microphone frame waits before it is processed (see `Configuration.echoReferenceWait`).
    public var echoReferenceWait: ClockTime {
        configuration.echoReferenceWait ?? .milliseconds(10)
    }

    /// Calls `handler` with every engine event; keep the token.
    public func observe(_ handler: @escaping @Sendable (EngineEvent) -> Void) -> ObservationToken {
        eventObservers.add(handler)
    }

    /// Stops handling the bus; cancelled outside the lock, as a handler under way may take it.
    private func cancelBusSubscription() {
        state.withLock { state in defer { state.busSubscription = nil }; return state.busSubscription }?.cancel()
    }

    deinit {
        cancelBusSubscription()
        link.closing(discardingErrors: false)
        tearDown()
    }
}

