import ClassroomAudio
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// Owns a classroom's audio: the session decides, the controller applies each resolved state to
/// the engine by diff, and the graph's own observations (devices, corking, levels, silent
/// feeds) flow back into the session.
///
/// Every change to GStreamer happens on one serial queue; session and engine callbacks only
/// hand work to it.
public final class SessionController: Sendable {
    /// Which microphone the uplink opens.
    public enum MicrophonePolicy: Sendable, Hashable {
        /// The route's input device, as the session resolves it.
        case route
        /// Always this source (files and pushed samples for tests and demos).
        case fixed(MicrophoneSource)
        /// The sound-server source the user named: the session's input choice while it is
        /// connected, then the route's input (DESIGN §4 Routes). Without a sound-server output
        /// there is no device watch, and the source is opened as named.
        case chosen(String)
    }

    /// The session: leases, policy, volumes, routes.
    public let session: AudioSession
    /// The live graph.
    public let engine: AudioEngine
    let queue = DispatchQueue(label: "classroom-audio.session-controller")
    let microphone: MicrophonePolicy
    /// Whether the mix can come back through the microphone (a speaker in the room, or a test's simulated room).
    let mixReachesMicrophone: Bool
    let alarms: AlarmSettings
    let onUplinkFrame: @Sendable (UplinkFrame) -> Void
    let logger: Logger
    let state = Locked(ControllerState())
    let monitors: GraphMonitors
    /// What the sound server really plays on the output's device (1032).
    let witness: OutputWitness

    struct ControllerState: Sendable {
        var applied: ResolvedState?
        var lesson: LessonPlayer?
        var lessonWasPlaying = false
        var microphone: MicrophoneLease = .none
        var tokens: [any AnyObject & Sendable] = []
        var deviceMonitor: DeviceMonitor?
        var deviceIDs: [String: String] = [:]   // display name → server id, for removals
        var timer: DispatchSourceToken?
        /// Bluetooth devices that went away, by physical device and direction, held back for
        /// `profileSwitchGrace` in case the same headset comes back under another profile.
        var departedBluetooth: [String: String] = [:]
        /// How many times the alarms were checked.
        var alarmChecks = 0
        /// While a microphone that failed to open (1033) is wanted: the next try and when (uptime ns).
        var microphoneRetry: (attempt: Int, at: UInt64)?
    }

    /// Builds the engine for `output` and a session over it. `mixReachesMicrophone` false (the mix played
    /// nowhere or into a file) spares AEC3 an echo that cannot come (`VoiceProcessing(profile:mixReachesMicrophone:on:)`).
    public init(output: OutputTarget, settings: SessionSettings = SessionSettings(), microphone: MicrophonePolicy = .route,
                mixReachesMicrophone: Bool = true,
                alarms: AlarmSettings = AlarmSettings(), engineConfiguration: AudioEngine.Configuration = .init(),
                logger: Logger, onUplinkFrame: @escaping @Sendable (UplinkFrame) -> Void = { _ in }) throws(EngineError) {
        var configuration = engineConfiguration
        configuration.mediaRole = settings.baseConfiguration.mediaRole
        engine = try AudioEngine(output: output, configuration: configuration, logger: logger)
        do {
            session = try AudioSession(settings: settings, hardware: EngineHardware(engine: engine), logger: logger)
        } catch {
            throw .gstreamer(.failed(error.description))
        }
        self.microphone = microphone
        self.mixReachesMicrophone = mixReachesMicrophone
        self.alarms = alarms
        self.onUplinkFrame = onUplinkFrame
        self.logger = logger
        monitors = GraphMonitors(settings: alarms)
        witness = OutputWitness(logger: logger)
    }

    // MARK: Life cycle

    /// Starts the engine, the device watch and the monitors, activates the session and applies it.
    public func start() throws(EngineError) {
        try engine.start()
        let sessionToken = session.observe { [weak self] event in
            guard let self else { return }
            self.queue.async { self.handle(event) }
        }
        let engineToken = engine.observe { [weak self] event in self?.handle(event) }
        state.withLock { $0.tokens += [sessionToken, engineToken] }
        // On the queue: the devices' route changes are applied once the user's choices are in,
        // so a named output is never moved to the route's pick and back.
        let watched = queue.sync { () -> EngineError? in
            do throws(EngineError) {
                try startDeviceWatch()
                try chooseNamedDevices()
            } catch {
                return error
            }
            return nil
        }
        if let watched { throw watched }
        do { try session.setActive(true) } catch { logger.error("session activation refused: \(error)") }
        startMonitorTimer()
        queue.sync { apply() }
    }

    /// Stops everything; a WAV output is finalised.
    public func stop() {
        let (lesson, monitor, timer) = state.withLock { state in
            defer { state.tokens.removeAll(); state.timer = nil; state.deviceMonitor = nil }
            return (state.lesson, state.deviceMonitor, state.timer)
        }
        timer?.cancel()
        monitor?.stop()
        witness.stop()
        lesson?.stop()
        queue.sync {
            engine.disconnectMicrophone()
            engine.stop()
        }
    }

    // MARK: Microphone, lesson, RTC

    /// Connects the student's microphone: takes the voiceCall lease (playAndRecord/voiceChat,
    /// voice processing, call volume) — the courseware keeps playing, at the same level.
    public func connectMicrophone(owner: String = "mic-connect") throws(AudioSessionError) {
        // Claimed in the same lock section that checks it, so two callers cannot both lease (the
        // second's token would leak). No lock is held across the lease: the session calls its
        // observers on this thread, and they read `isMicrophoneConnected`.
        let claimed = state.withLock { state in
            guard case .none = state.microphone else { return false }
            state.microphone = .changing
            return true
        }
        guard claimed else { return }
        do {
            let token = try session.lease(.voiceCall, owner: owner)
            state.withLock { $0.microphone = .held(token) }
        } catch {
            state.withLock { $0.microphone = .none }
            throw error
        }
        queue.sync {}   // the session's events have been applied when this returns
    }

    /// Disconnects the microphone: releases the lease; what the other leases need returns.
    public func disconnectMicrophone() throws(AudioSessionError) {
        let token = state.withLock { state -> LeaseToken? in
            guard case .held(let token) = state.microphone else { return nil }
            state.microphone = .changing
            return token
        }
        guard let token else { return }
        defer { state.withLock { $0.microphone = .none } }   // gone even when the session had already revoked it
        try session.release(token)
        queue.sync {}
    }

    /// The microphone lease, as connect and disconnect see it.
    enum MicrophoneLease: Sendable {
        case none
        /// A connect or a disconnect is under way: another one now returns at once.
        case changing
        case held(LeaseToken)
    }

    /// True while the microphone lease is held.
    public var isMicrophoneConnected: Bool {
        state.withLock { state in if case .held = state.microphone { return true } else { return false } }
    }

    /// Loads a lesson whose audio goes into the courseware input (created on first use); stops the previous one.
    public func loadLesson(uri: String, video: LessonPlayer.VideoOutput, audioTrack: Int = 0) throws(EngineError) -> LessonPlayer {
        let lesson = try makeLesson(uri: uri, video: video, audioTrack: audioTrack)
        adoptLesson(lesson)
        return lesson
    }

    /// A lesson for the courseware input (created on first use) that is not the controller's yet:
    /// it can be prerolled while the current one plays on, then adopted (`adoptLesson`) or dropped.
    public func makeLesson(uri: String, video: LessonPlayer.VideoOutput, audioTrack: Int = 0) throws(EngineError) -> LessonPlayer {
        let courseware: AudioInput
        if let existing = engine.input(id: "courseware") {
            courseware = existing
        } else {
            courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        }
        return try LessonPlayer(uri: uri, courseware: courseware, video: video, videoDelay: engine.outputLatency, audioTrack: audioTrack, logger: logger)
    }

    /// Makes `lesson` the controller's lesson and stops the previous one.
    public func adoptLesson(_ lesson: LessonPlayer) {
        let previous = state.withLock { state -> LessonPlayer? in defer { state.lesson = lesson }; return state.lesson }
        if previous !== lesson { previous?.stop() }
    }

    /// The lesson, once loaded.
    public var lesson: LessonPlayer? { state.withLock { $0.lesson } }

    // MARK: Applying the session

    /// Applies the session's resolved state to the engine, changing only what differs.
    func apply() {
        let new = session.resolvedState
        let old = state.withLock { $0.applied }
        do {
            // Output first: a route change (Bluetooth A2DP → HFP on mic-connect included) is a retarget.
            if engine.output.isSoundServer, new.route.output?.deviceID != old?.route.output?.deviceID {
                retarget(to: new.route.output?.deviceID, leaving: old?.route.output?.deviceID)
            }
            try applyMicrophone(new: new, old: old)
            if new.volume != old?.volume {
                engine.setMasterVolume(Double(new.volume.value), ramp: .milliseconds(50))
            }
            if new.ducking != old?.ducking {
                engine.setDucking(Double(new.ducking.factor), ramp: ClockTime(new.ducking.ramp))
            }
            if new.isInterrupted != old?.isInterrupted { try engine.uplink?.setMuted(new.isInterrupted) }
        } catch {
            logger.error("applying the session failed: \(error)")
        }
        monitors.expectedCoursewareGain = Double(new.volume.value) * Double(new.ducking.factor)
        state.withLock { $0.applied = new }
    }

    // MARK: Events

    func handle(_ event: SessionEvent) {
        switch event {
        case .lessonPauseRequested(let reason):
            if let lesson, lesson.isPlaying {
                logger.info("lesson paused", metadata: ["reason": "\(reason)"])
                try? lesson.pause()
                if case .interruption = reason { state.withLock { $0.lessonWasPlaying = true } }
            }
        case .interruptionEnded(_, let shouldResume):
            apply()
            if shouldResume, state.withLock({ state -> Bool in defer { state.lessonWasPlaying = false }; return state.lessonWasPlaying }) {
                try? lesson?.play()
            }
            return
        default:
            break
        }
        apply()
    }

    func handle(_ event: EngineEvent) {
        switch event {
        case .outputStateRequested(let requested):
            // The pipeline is not paused (mic and RTC share it): a cork is an interruption of
            // the output, which the server also mutes. Its end comes as an uncork request, or -
            // since we never corked - only as the server unmuting us, which the monitor watches.
            queue.async { [self] in
                if requested == .paused {
                    serverCorked()
                } else if requested == .playing {
                    endServerCork()
                }
            }
        case .outputLost(let why):
            queue.async { [self] in outputLost(why) }
        case .level(let meter, let rms, _, let runningTime):
            monitors.record(meter: meter, rms: rms, runningTime: runningTime)
            // Frames flow from the microphone: it opened, whatever failed before.
            if meter == EngineGraph.micLevel { queue.async { [self] in microphoneOpened() } }
        case .error(let element, let message, _):
            logger.error("engine error in \(element): \(message)")
            if element == EngineGraph.micSource { queue.async { [self] in microphoneFailed(message) } }
        case .outputUnderrun:
            // The output latency may have grown: the lesson's video follows it.
            queue.async { [self] in
                let latency = engine.outputLatency
                state.withLock { $0.lesson }?.setVideoDelay(latency)
            }
        case .warning:
            break
        }
    }
}
