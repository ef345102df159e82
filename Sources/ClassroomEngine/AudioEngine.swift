import Foundation
import GStreamer
import Logging
import Synchronization

/// The live classroom audio graph (DESIGN §3): inputs mixed by one `audiomixer`, the master
/// volume, a level meter and the WebRTC echo probe in front of the output; and, while a lease
/// records, the microphone chain through `webrtcdsp` to the uplink.
///
/// The pipeline runs for the whole class on the system clock, with a fixed latency so inputs
/// and the microphone coming and going never change it. Every mutation is made by the caller
/// (the session controller serialises them); streaming-thread callbacks only touch atomics
/// and locked state.
public final class AudioEngine: Sendable {
    /// Tunables; the defaults are what the tests and the benchmark measure.
    public struct Configuration: Sendable {
        /// How long the mixer waits for late input: the jitter an input may have. With 20 ms,
        /// the CPU spike of a microphone starting on PulseAudio made inputs miss it (measured clicks).
        public var mixerLatency: ClockTime = .milliseconds(40)
        /// The pipeline's fixed latency: the mix plays this long after it is produced. Covers
        /// the mixer latency, one 10 ms block, the sink's 20 ms processing deadline and a margin.
        public var pipelineLatency: ClockTime = .milliseconds(100)
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
        /// reports leave out. The canceller removes echo whose path lies from about 5 ms above this
        /// value to about 50 ms above it. Measured through the engine (ERLE, speech, −6 dB echo,
        /// 10 ms wait): with 0: 18 dB at 2 ms, 61 dB at 5–50 ms, 15 dB at 55 ms; with 150: 16 dB
        /// at 150 ms, 61 dB at 190 ms; with 395: 61 dB at 400 ms. The echo-path estimator moves it.
        public var echoPathCompensation: ClockTime = .zero
        /// How long after its capture time a microphone frame waits before the DSP processes it.
        ///
        /// webrtcdsp takes the far end for a frame from the echo probe when it processes the frame;
        /// the far end for an echo path of 5 ms reaches the probe about 5 ms after the frame's
        /// capture time (the mix reaches the probe about as late as the pipeline latency allows).
        /// A live microphone delivers a 10 ms frame 10 ms after its capture time anyway.
        /// Nil: 10 ms. It delays the uplink by as much.
        public var echoReferenceWait: ClockTime?
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
    /// Set while the output sink is taken down: queries from upstream then fail at its pad
    /// instead of reaching it. pulsesink 1.22 answers a caps query through a process-wide
    /// PulseAudio main loop that the last pulsesink frees on NULL; the mixer's renegotiation
    /// reaching it then crashed the process (a freed PA mutex, seen on a sound-server restart).
    private let outputClosing = Locked(false)
    private let outputGuard = Mutex<[PadProbe]>([])
    /// Buffers that reached the output sink since the last (re)start; see `outputStreamIsUp`.
    private let outputBuffers = Locked(0)
    /// Unique per engine: webrtcdsp finds its probe by name in a process-wide list.
    let probeName: String
    private let logger: Logger
    private let state = Mutex(State())
    private let busSubscription: Mutex<BusSubscription?> = Mutex(nil)

    private struct State {
        var inputs: [String: AudioInput] = [:]
        var uplink: Uplink?
        var running = false
        var eventHandlers: [UInt64: @Sendable (EngineEvent) -> Void] = [:]
        /// Not an `EngineEvent` case: adding one breaks every exhaustive switch over them.
        var echoPathHandlers: [UInt64: @Sendable (EchoPathEstimate) -> Void] = [:]
        var nextHandler: UInt64 = 0
        /// Set by `restart()` until its marker comes through the bus: the dead output's errors
        /// from before the restart may still be on their way and must not count as a new loss.
        var discardingStaleOutputErrors = false
        /// The output sink reported an error since the last (re)start: its server stream may be gone.
        var outputFailed = false
    }

    /// The application message `restart()` posts behind the stale errors.
    private static let restartMarker = "classroom-engine-restarted"

    private static let instances = Atomic<Int>(0)

    /// Builds the graph (not started). Throws when an element is missing or the output cannot be made.
    public init(output: OutputTarget, configuration: Configuration = Configuration(), logger: Logger) throws(EngineError) {
        self.output = output
        self.configuration = configuration
        self.logger = logger
        let number = AudioEngine.instances.add(1, ordering: .relaxed).newValue
        probeName = "echo-probe-\(number)"
        let built = try EngineError.wrap { () throws(GStreamerError) in try AudioEngine.buildOutputChain(output: output, configuration: configuration, probeName: "echo-probe-\(number)", number: number) }
        (pipeline, mixer, master, probe, outputSink) = built
        let closing = outputClosing
        let answersCaps = output.isSoundServer
        let mixCaps = EngineGraph.outputFormat.caps
        let guardProbe = (try? outputSink.staticPad("sink"))?.addProbe([.queryDownstream, .queryUpstream]) { info in
            // pulsesink 1.22 answers caps queries through its PulseAudio main loop, which a killed
            // stream (its device unplugged with nowhere to go) leaves with a dead owner: the mixer's
            // renegotiation then aborted the process. The format is fixed and PulseAudio converts,
            // so the engine answers for it.
            if answersCaps, let query = info.query {
                if query.isCaps { query.answerCaps(mixCaps); return .handled }
                if query.isAcceptCaps { query.answerAcceptCaps(true); return .handled }
            }
            // A dropped query fails (returns FALSE) without reaching a sink being taken down.
            return closing.withLock { $0 } ? .drop : .ok
        }
        let buffers = outputBuffers
        let counter = (try? outputSink.staticPad("sink"))?.addProbe(.buffer) { _ in
            buffers.withLock { $0 = min($0 + 1, 2) }
            return .ok
        }
        // webrtcechoprobe serves each mic frame the far end that plays `delay` ms after it, where
        // `delay` is its upstream latency (50 ms here), and that far end reaches it only then: every
        // frame had to wait ~55 ms. Answering 0 makes it serve by timestamp alone (measured: 61 dB
        // with a 10 ms wait instead of 52).
        let lookahead = (try? probe.staticPad("src"))?.addProbe(.queryUpstream) { info in
            guard let query = info.query, query.isLatency else { return .ok }
            query.answerLatency(live: true, min: .zero, max: nil)
            return .handled
        }
        outputGuard.withLock { $0 = [guardProbe, counter, lookahead].compactMap { $0 } }
    }

    private static func buildOutputChain(output: OutputTarget, configuration: Configuration, probeName: String, number: Int) throws(GStreamerError)
        -> (Pipeline, Element, VolumeControl, Element, Element) {
        let pipeline = try Pipeline(name: "classroom-engine-\(number)")
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
        let format = try ElementFactory.make("capsfilter", name: "mix-format", properties: ["caps": .caps(EngineGraph.outputFormat.caps)])
        let master = try VolumeControl(name: EngineGraph.masterVolume, initial: 1.0)
        let level = try ElementFactory.make("level", name: EngineGraph.outputLevel, properties: ["interval": .time(configuration.levelInterval)])
        let probe = try ElementFactory.make("webrtcechoprobe", name: probeName)
        let sinkChain = try output.makeElements(mediaRole: configuration.mediaRole)
        let chain = [mixer, format, master.element, level, probe] + sinkChain
        try pipeline.addLinked(chain)
        guard let sink = sinkChain.last else { throw .failed("the output has no sink") }
        return (pipeline, mixer, master, probe, sink)
    }

    // MARK: Running

    /// Starts the graph. With a sound-server output, fails when no server answers.
    public func start() throws(EngineError) {
        outputClosing.withLock { $0 = false }
        let firstError = FirstFailure<(GLibError, String?)>()
        let subscription = pipeline.bus.subscribe { [weak self] message in
            firstError.record(message)
            self?.handle(message)
        }
        busSubscription.withLock { $0 = subscription }
        do {
            try goPlaying(reporting: firstError)
        } catch {
            busSubscription.withLock { $0?.cancel(); $0 = nil }
            throw error
        }
        state.withLock { $0.running = true }
        logger.info("audio engine started", metadata: ["output": "\(output)", "latency": "\(configuration.pipelineLatency)"])
    }

    /// Sets the pipeline to PLAYING and waits (bounded) until it plays; on failure the pipeline is
    /// back in NULL and the error names the bus's reason.
    private func goPlaying(reporting firstError: FirstFailure<(GLibError, String?)>) throws(EngineError) {
        do {
            // Waits (bounded) until it really plays: tearing a pipeline down while it is still on
            // its way up, with inputs already pushing, deadlocked once in a full parallel test run.
            try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        } catch {
            // The reason is on the bus (e.g. "Failed to connect: Connection refused"); give it a moment to arrive.
            let reason = firstError.wait(upTo: .milliseconds(500))
            _ = try? pipeline.setState(.null)
            throw .gstreamer(.stateChangeFailed(element: pipeline.name, target: .playing, error: reason?.0, debug: reason?.1))
        }
    }

    /// Takes the graph down (NULL) without forgetting it, because its output cannot play: the
    /// microphone chain goes, inputs keep their handles and refuse pushes with `notRunning`
    /// until `restart()`.
    public func suspend() throws(EngineError) {
        guard isRunning else { throw .notRunning }
        disconnectMicrophone()
        state.withLock { $0.discardingStaleOutputErrors = true }
        tearDown()
        outputClosing.withLock { $0 = false }
        outputBuffers.withLock { $0 = 0 }
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
        try goPlaying(reporting: firstError)
        state.withLock { $0.outputFailed = false }
        logger.notice("audio engine restarted", metadata: ["output": "\(output)"])
    }

    /// Stops the graph. A WAV output is finalised first (its header written) so nothing is lost.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running
        }
        if wasRunning, case .wavFile = output { finalizeOutput() }
        tearDown()
        busSubscription.withLock { $0?.cancel(); $0 = nil }
    }

    /// Sets the pipeline to NULL, output sink first, with upstream queries failing at the sink's pad
    /// (they stay failing until `start()`, or until `suspend()` is done).
    ///
    /// The output sink goes first: on the way down it holds the mixer in preroll, and a new
    /// input's allocation query waits on the mixer, which deadlocked a teardown (seen twice
    /// in 16 test runs, stacks: appsrc in peer query, mixer in basesink preroll, the state
    /// change waiting for the appsrc's task).
    private func tearDown() {
        outputClosing.withLock { $0 = true }
        outputSink.isStateLocked = true
        _ = try? outputSink.setState(.null)
        _ = try? pipeline.setState(.null)
        outputSink.isStateLocked = false
    }

    /// True between `start()` and `stop()`.
    public var isRunning: Bool { state.withLock { $0.running } }

    /// The engine's running time now (clock time minus base time).
    public var runningTime: ClockTime? { pipeline.currentRunningTime }

    /// The output latency: how long after mixing a sample is played.
    public var outputLatency: ClockTime { configuration.pipelineLatency }

    /// How much earlier the DSP treats microphone frames (see `Configuration.echoPathCompensation`).
    public var echoPathCompensation: ClockTime { configuration.echoPathCompensation }

    /// How long a microphone frame waits before it is processed (see `Configuration.echoReferenceWait`).
    public var echoReferenceWait: ClockTime {
        configuration.echoReferenceWait ?? .milliseconds(10)
    }

    /// Calls `handler` with every engine event; keep the token.
    public func observe(_ handler: @escaping @Sendable (EngineEvent) -> Void) -> EngineObservation {
        let id = state.withLock { state -> UInt64 in
            state.nextHandler += 1
            state.eventHandlers[state.nextHandler] = handler
            return state.nextHandler
        }
        return EngineObservation { [weak self] in self?.state.withLock { _ = $0.eventHandlers.removeValue(forKey: id) } }
    }

    // MARK: Inputs

    /// Adds an input in `format` and mixes it from now on (also while playing).
    public func addInput(id: String, kind: AudioInput.Kind, format: AudioFormat) throws(EngineError) -> AudioInput {
        guard format.interleaved, [1, 2].contains(format.channels), (8_000...192_000).contains(format.rate) else {
            throw .unsupportedFormat(format, reason: "inputs must be interleaved mono or stereo between 8 and 192 kHz")
        }
        if state.withLock({ $0.inputs[id] != nil }) { throw .duplicateInput(id) }
        let input = try EngineError.wrap { () throws(GStreamerError) in try makeInput(id: id, kind: kind, format: format) }
        state.withLock { $0.inputs[id] = input }
        logger.info("input added", metadata: ["input": "\(id)", "kind": "\(kind.rawValue)", "format": "\(format)"])
        return input
    }

    /// Adds an RTC participant's input: what the RTC SDK pushes decoded PCM into.
    public func addRTCInput(id: String, format: AudioFormat) throws(EngineError) -> AudioInput {
        try addInput(id: id, kind: .rtc, format: format)
    }

    /// Removes an input while playing; later pushes to it are refused with `inputRemoved`.
    public func removeInput(id: String) throws(EngineError) {
        guard let input = state.withLock({ $0.inputs.removeValue(forKey: id) }) else { throw .unknownInput(id) }
        input.markRemoved()
        try EngineError.wrap { () throws(GStreamerError) in
            // The recipe measured gapless (GSTREAMER-NOTES §2): unlink, stop the branch, and only
            // then release the mixer's pad.
            if let last = input.elements.last { try last.staticPad("src").unlink(from: input.mixerPad) }
            for element in input.elements { element.isStateLocked = true }
            for element in input.elements.reversed() {
                try element.setState(.null)
                try pipeline.remove(element)
            }
            mixer.releaseRequestPad(input.mixerPad)
        }
        logger.info("input removed", metadata: ["input": "\(id)"])
    }

    /// The inputs being mixed.
    public var inputs: [AudioInput] { state.withLock { Array($0.inputs.values) } }

    /// The input called `id`.
    public func input(id: String) -> AudioInput? { state.withLock { $0.inputs[id] } }

    private func makeInput(id: String, kind: AudioInput.Kind, format: AudioFormat) throws(GStreamerError) -> AudioInput {
        let source = try AppSource.make(name: "\(id)-src")
        // Live, timestamped by AudioInput (contiguous, anchored to the running time on arrival):
        // a push plays `pipelineLatency` later.
        // Bounded in bytes: appsrc's queued-time figure trails what is really queued (measured 50 ms
        // reported with 2 s queued), so the byte limit is what keeps memory bounded.
        let queueBytes = Int(configuration.inputQueue.nanoseconds * UInt64(format.rate) / 1_000_000_000) * format.bytesPerFrame
        try source.configure(audio: format, isLive: true, doTimestamp: false,
                             limits: .init(bytes: queueBytes), whenFull: .dropOldest)
        var elements: [Element] = [
            source,
            try ElementFactory.make("audioconvert", name: "\(id)-convert"),
            try ElementFactory.make("audioresample", name: "\(id)-resample"),
            // The mixer converts channels and format but not rate.
            try ElementFactory.make("capsfilter", name: "\(id)-format", properties: ["caps": .caps(EngineGraph.outputFormat.caps)]),
        ]
        var duck: VolumeControl?
        if kind == .courseware {
            // The courseware's own level, before ducking: the mediaSuppressed monitor compares it with the output.
            elements.append(try ElementFactory.make("level", name: "\(id)-level", properties: ["interval": .time(configuration.levelInterval)]))
            let control = try VolumeControl(name: "\(id)-duck", initial: 1.0)
            elements.append(control.element)
            duck = control
        }
        try pipeline.addLinked(elements)
        let pad = try mixer.requestPad("sink_%u")
        guard let last = elements.last else { throw .failed("empty input branch") }
        try last.staticPad("src").link(to: pad)
        for element in elements { try element.syncStateWithParent() }
        let pipeline = self.pipeline
        return AudioInput(id: id, kind: kind, format: format, source: source, elements: elements, mixerPad: pad, duck: duck,
                          clock: { pipeline.currentRunningTime })
    }

    // MARK: Volumes

    /// Ramps the master volume (the session's active channel) to `gain` over `ramp`.
    public func setMasterVolume(_ gain: Double, ramp: ClockTime = .milliseconds(50)) {
        master.ramp(to: gain, over: ramp, now: runningTime)
    }

    /// The master volume's target gain.
    public var masterVolume: Double { master.targetGain }

    /// Ramps every ducked input (the courseware) to `factor` over `ramp`.
    public func setDucking(_ factor: Double, ramp: ClockTime) {
        for input in inputs { input.duck?.ramp(to: factor, over: ramp, now: runningTime) }
    }

    // MARK: Output

    /// Moves the output to another sound-server device without stopping: pulsesink moves its
    /// stream server-side when `device` changes (measured: no gap, no stall). No-op for other
    /// outputs; throws `notRunning` while the output stream is not up (see `outputStreamIsUp`).
    public func retargetOutput(device: String?) throws(EngineError) {
        guard output.isSoundServer else { return }
        guard outputStreamIsUp else { throw .notRunning }
        try EngineError.wrap { () throws(GStreamerError) in
            // nil asks for the server's default: PulseAudio's own routing decides.
            try outputSink.set("device", .string(device ?? ""))
        }
        logger.info("output retargeted", metadata: ["device": "\(device ?? "default")"])
    }

    /// True when the output's server stream exists and has not failed: the sink rendered a buffer
    /// (so its stream was connected) and reported no error since.
    ///
    /// pulsesink 1.22 must only be asked for `current-device`, `mute` or a `device` move then:
    /// with a stream that is still connecting, or that the server killed, those calls return with
    /// its process-wide PulseAudio main loop still locked (`no_index`/`no_buffer` paths in
    /// pulsesink.c). The next lock from another thread then deadlocks, or aborts the process
    /// once the first thread has exited (measured: "Assertion `robust || (oldval &
    /// FUTEX_OWNER_DIED) == 0' failed" after the only sink was unloaded).
    public var outputStreamIsUp: Bool {
        output.isSoundServer && isRunning && outputBuffers.withLock { $0 } >= 2 && !state.withLock { $0.outputFailed }
    }

    /// The sound-server device the output stream is on now (pulsesink `current-device`); nil
    /// while the stream is not up, and for other outputs.
    public var currentOutputDevice: String? {
        guard outputStreamIsUp else { return nil }
        return (try? outputSink.string("current-device")) ?? nil
    }

    /// Whether the sound server has muted our output stream (role policies mute a corked stream
    /// server-side and unmute it when the interruption ends); nil while the stream is not up,
    /// and for other outputs. Asks the server.
    public var isOutputMutedByServer: Bool? {
        guard outputStreamIsUp else { return nil }
        return try? outputSink.bool("mute")
    }

    /// Calls `handler` with every buffer reaching the output sink (measurement, tests). Streaming thread; keep the token.
    public func tapOutput(_ handler: @escaping @Sendable (Buffer) -> Void) throws(EngineError) -> PadProbe? {
        let pad = try EngineError.wrap { () throws(GStreamerError) in try outputSink.staticPad("sink") }
        return pad.addProbe(.buffer) { info in
            if let buffer = info.buffer { handler(buffer) }
            return .ok
        }
    }

    /// Sends EOS into the WAV encoder only (the force-live mixer never ends) and waits for the file to be complete.
    private func finalizeOutput() {
        guard let encoder = pipeline.element(named: "output-encoder"), let pad = try? encoder.staticPad("sink") else { return }
        let bus = pipeline.bus
        let sinkName = EngineGraph.outputSink
        let done = bus.waitForMessage(timeout: .seconds(2), after: {
            if let eos = try? Event.endOfStream() { pad.send(eos) }
        }) { message in
            if case .endOfStream = message.view { return true }
            return message.source == sinkName && { if case .endOfStream = message.view { return true }; return false }()
        }
        if done == nil { logger.warning("the WAV output did not confirm its end within 2 s; the file may lack its final header") }
    }

    // MARK: Microphone

    /// The microphone chain, while it exists.
    public var uplink: Uplink? { state.withLock { $0.uplink } }

    /// Builds the microphone chain while playing: `source` → 10 ms framing → webrtcdsp (bound to
    /// this engine's echo probe, with `processing`) → level → mute → `onFrame` (10 ms frames).
    public func connectMicrophone(_ source: MicrophoneSource, processing: VoiceProcessing,
                                  onFrame: @escaping @Sendable (UplinkFrame) -> Void) throws(EngineError) -> Uplink {
        if let existing = uplink { return existing }
        let uplink = try EngineError.wrap { () throws(GStreamerError) in try makeUplink(source, processing: processing, onFrame: onFrame) }
        state.withLock { $0.uplink = uplink }
        logger.info("microphone connected", metadata: ["source": "\(source)", "processing": "\(processing)"])
        return uplink
    }

    /// Tears the microphone chain down; the output chain is untouched.
    public func disconnectMicrophone() {
        guard let uplink = state.withLock({ state -> Uplink? in defer { state.uplink = nil }; return state.uplink }) else { return }
        uplink.detachEchoPath()
        // Locked first, so a pipeline-wide state change cannot bring an element back up while it goes.
        for element in uplink.elements { element.isStateLocked = true }
        for element in uplink.elements.reversed() {
            do { try element.setState(.null) } catch { logger.warning("'\(element.name)' did not stop cleanly: \(error)") }
        }
        for element in uplink.elements { try? pipeline.remove(element) }
        logger.info("microphone disconnected", metadata: ["frames": "\(uplink.framesDelivered)"])
    }

    private func makeUplink(_ source: MicrophoneSource, processing: VoiceProcessing,
                            onFrame: @escaping @Sendable (UplinkFrame) -> Void) throws(GStreamerError) -> Uplink {
        var head: [Element] = []
        var pushed: AppSource?
        var decoder: Element?
        switch source {
        case .device(let name):
            var builder = ElementBuilder("pulsesrc").named(EngineGraph.micSource)
                .set("stream-properties", .string("props,media.role=phone,application.name=classroom-audio"))
            if let name { builder = builder.set("device", .string(name)) }
            head = [try builder.make()]
        case .file(let path):
            let uri = URL(fileURLWithPath: path).standardizedFileURL.absoluteString
            let decode = try ElementFactory.make("uridecodebin", name: EngineGraph.micSource, properties: ["uri": .string(uri)])
            decoder = decode
        case .pushed:
            let app = try AppSource.make(name: EngineGraph.micSource)
            try app.configure(audio: EngineGraph.uplinkFormat, isLive: true, doTimestamp: false,
                              limits: .init(time: .seconds(1)), whenFull: .dropOldest)
            pushed = app
            head = [app]
        }
        let split = try ElementFactory.make("audiobuffersplit", name: EngineGraph.micSplit, properties: ["output-buffer-duration": .string("1/100")])
        let dsp = try ElementFactory.make("webrtcdsp", name: EngineGraph.voiceDSP, properties: ["probe": .string(probeName)])
        try processing.apply(to: dsp)
        let mute = try ElementFactory.make("volume", name: EngineGraph.uplinkMute)
        let sink = try AppSink.make(name: EngineGraph.uplinkSink)
        try sink.configure(caps: EngineGraph.uplinkFormat.caps, maxBuffers: 100, drop: true, sync: false)
        // An async sink added to a playing pipeline makes the whole pipeline lose and redo its
        // state (PAUSED→PLAYING), which also re-starts elements being torn down (measured).
        try sink.set("async", false)
        let body: [Element] = [
            try ElementFactory.make("audioconvert", name: "mic-convert"),
            try ElementFactory.make("audioresample", name: "mic-resample"),
            try ElementFactory.make("capsfilter", name: "mic-format", properties: ["caps": .caps(EngineGraph.uplinkFormat.caps)]),
            // Every frame is processed `echoReferenceWait` after its capture time, when the echo
            // probe holds the far end it needs; files and pushed samples are also paced in real time by it.
            try ElementFactory.make("clocksync", name: "mic-pace", properties: ["ts-offset": .int(Int64(echoReferenceWait.nanoseconds))]),
            split, dsp,
            try ElementFactory.make("level", name: EngineGraph.micLevel, properties: ["interval": .time(configuration.levelInterval)]),
            mute, sink,
        ]
        let all = head + (decoder.map { [$0] } ?? []) + body
        try pipeline.add(all)
        // The decoder's pad appears later and is linked by the pad-added handler.
        try Element.link(head + body)

        var tokens: [any AnyObject & Sendable] = []
        if let decoder, let first = body.first {
            let pipeline = self.pipeline
            tokens.append(decoder.onPadAdded { pad in
                guard pad.queryCaps().structure()?.name.hasPrefix("audio/") == true,
                      let sinkPad = try? first.staticPad("sink"), !sinkPad.isLinked else { return }
                // The file starts now: shift its timestamps to the engine's running time.
                pad.offset = Int64(pipeline.currentRunningTime?.nanoseconds ?? 0)
                try? pad.link(to: sinkPad)
            })
        }
        let uplink = Uplink(source: source, pushedInput: pushed, elements: all, dsp: dsp, split: split, mute: mute,
                            sink: sink, processing: processing, compensation: echoPathCompensation, tokens: tokens)
        if echoPathCompensation > .zero { try uplink.setEchoPathCompensation(echoPathCompensation) }
        // webrtcdsp restamps its output with running time, which the compensation moved earlier.
        let frameToken = try sink.onNewSample { [weak uplink] sample in
            guard let buffer = sample.buffer, let uplink else { return }
            uplink.countFrame()
            let compensation = uplink.echoPathCompensation
            onFrame(UplinkFrame(samples: buffer.int16Samples(), timestamp: buffer.pts.map { $0 + compensation }))
        }
        uplink.keep(frameToken)
        if processing.echoCancel { try watchEchoPath(of: uplink, split: split) }
        for element in all { try element.syncStateWithParent() }
        return uplink
    }

    /// Taps the far end (by play time) and the microphone (by capture time) for the echo-path
    /// estimator, and moves the DSP's compensation to each delay it settles on.
    private func watchEchoPath(of uplink: Uplink, split: Element) throws(GStreamerError) {
        let latency = configuration.pipelineLatency
        let estimator = EchoPathEstimator { [weak self, weak uplink] estimate in
            guard let self, let uplink else { return }
            self.apply(estimate, to: uplink)
        }
        let channels = EngineGraph.outputFormat.channels
        // The mix's timestamps are running time; it plays `latency` later.
        let farTap = try probe.staticPad("sink").addProbe(.buffer) { info in
            if let buffer = info.buffer, let pts = buffer.pts {
                estimator.recordFarEnd(buffer.int16Samples(), channels: channels, playTime: pts + latency)
            }
            return .ok
        }
        // Before the DSP and its pad offset: the capture timestamps as they are.
        let micTap = try split.staticPad("src").addProbe(.buffer) { info in
            if let buffer = info.buffer, let pts = buffer.pts {
                estimator.recordMicrophone(buffer.int16Samples(), channels: 1, captureTime: pts)
            }
            return .ok
        }
        uplink.attach(estimator, taps: [farTap, micTap].compactMap { $0 })
    }

    /// Centres the canceller's window (about 5–50 ms past the compensation) on `estimate`, and tells the observers.
    private func apply(_ estimate: EchoPathEstimate, to uplink: Uplink) {
        let margin = ClockTime.milliseconds(25)
        let compensation = estimate.delay > margin ? ClockTime(nanoseconds: estimate.delay.nanoseconds - margin.nanoseconds) : .zero
        do {
            try uplink.setEchoPathCompensation(compensation)
        } catch {
            logger.warning("could not move the echo canceller to the measured echo path: \(error)")
            return
        }
        logger.info("echo path", metadata: ["delay": "\(estimate.delay)", "confidence": "\(estimate.confidence)",
                                            "compensation": "\(compensation)"])
        let handlers = state.withLock { Array($0.echoPathHandlers.values) }
        for handler in handlers { handler(estimate) }
    }

    /// Calls `handler` with every echo path the estimator settles on (its own queue); keep the token.
    public func observeEchoPath(_ handler: @escaping @Sendable (EchoPathEstimate) -> Void) -> EngineObservation {
        let id = state.withLock { state -> UInt64 in
            state.nextHandler += 1
            state.echoPathHandlers[state.nextHandler] = handler
            return state.nextHandler
        }
        return EngineObservation { [weak self] in self?.state.withLock { _ = $0.echoPathHandlers.removeValue(forKey: id) } }
    }

    /// The echo path in force on the microphone chain; nil without one, or before the estimator settled.
    public var echoPath: EchoPathEstimate? { uplink?.echoPath }

    // MARK: Bus

    private func handle(_ message: Message) {
        let event: EngineEvent?
        switch message.view {
        case .latency:
            // The echo probe reads the latency from the LATENCY event: keep it distributed.
            pipeline.recalculateLatency()
            event = nil
        case .error(let error, let debug):
            logger.error("\(message.source ?? "?"): \(error.message)", metadata: ["debug": "\(debug ?? "")"])
            if message.source == EngineGraph.outputSink {
                if state.withLock({ state in
                    if !state.discardingStaleOutputErrors { state.outputFailed = true }
                    return state.discardingStaleOutputErrors
                }) { return }
                event = .outputLost(error.message)
            } else {
                event = .error(element: message.source ?? "?", message: error.message, debug: debug)
            }
        case .warning(let error, _):
            event = .warning(element: message.source ?? "?", message: error.message)
        case .requestState(let requested):
            event = message.source == EngineGraph.outputSink ? .outputStateRequested(requested) : nil
        case .application(let structure) where structure.name == Self.restartMarker:
            state.withLock { $0.discardingStaleOutputErrors = false }
            event = nil
        case .element(let structure) where structure.name == "level":
            guard let rms = structure.doubles("rms"), let peak = structure.doubles("peak") else { return }
            event = .level(meter: message.source ?? "?", rms: rms, peak: peak, runningTime: structure.clockTime("running-time"))
        default:
            event = nil
        }
        guard let event else { return }
        let handlers = state.withLock { Array($0.eventHandlers.values) }
        for handler in handlers { handler(event) }
    }

    deinit {
        busSubscription.withLock { $0?.cancel() }
        tearDown()
    }
}

/// A registration for engine events; dropping or cancelling it stops delivery.
public final class EngineObservation: Sendable {
    private let cancelAction: Mutex<(@Sendable () -> Void)?>
    init(_ cancel: @escaping @Sendable () -> Void) { cancelAction = Mutex(cancel) }
    /// Stops delivery.
    public func cancel() { cancelAction.withLock { action in action?(); action = nil } }
    deinit { cancel() }
}
