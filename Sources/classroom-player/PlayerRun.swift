import ClassroomAudio
import ClassroomEngine
import ClassroomNetwork
import Foundation
import GStreamer
import Logging
import Synchronization

/// One `play`: the session controller with the lesson, the live feed, the microphone, the
/// timeline and the control channels around it, until the run ends.
///
/// Commands from the timeline, standard input and the control socket all run on one serial
/// queue, so they see and change the player one at a time; GStreamer and session callbacks only
/// record what happened and ask that queue, or the main thread, to act.
final class PlayerRun: Sendable {
    enum LessonState: String { case loading, playing, paused, ended, failed }

    struct State {
        var lesson: LessonPlayer?
        var lessonURI: String
        var lessonState = LessonState.loading
        /// How often `--after-lesson loop` played the lesson again.
        var loops = 0
        /// Why the lesson could not play or broke, when it did (the final exit status says so).
        var lessonFailure: String?
        /// Why an output file (the uplink WAV) could not be written, when one could not (exit 2).
        var outputFailure: String?
        /// Why the room refused this kiosk as configured; the class goes on without it.
        var roomRefusal: String?
        var coursewareLease: LeaseToken?
        var ending: RunEnding?
        var tokens: [any AnyObject & Sendable] = []
        var timers: [DispatchSourceToken] = []
        var snapshotter: Snapshotter?
        var control: ControlSocket?
    }

    let settings: PlaySettings
    let console: Console
    let events: EventLog
    let logger: Logger
    let controller: SessionController
    let uplink: UplinkSender?
    let peers: PeerRoster
    let room: RoomPresence?
    let followers: [any RunFollower]
    let meter = LevelMeter()
    let state: Mutex<State>
    let commands = DispatchQueue(label: "classroom-player.commands")
    let timeline: TimelineScheduler
    /// The verbs that change the session, and the ducks and leases they hold.
    let sessionCommands: SessionCommands
    let ended = DispatchSemaphore(value: 0)
    /// How much earlier than its declared duration a lesson may end and still have played to its end.
    static let truncationTolerance = 0.5

    /// Builds the controller; nothing plays yet.
    init(settings: PlaySettings, console: Console, events: EventLog, logger: Logger, followers: [any RunFollower] = []) throws(PlayerError) {
        self.settings = settings
        self.followers = followers
        state = Mutex(State(lessonURI: settings.lessonURI))
        timeline = TimelineScheduler(queue: commands)
        self.console = console
        self.events = events
        self.logger = logger
        let microphone: SessionController.MicrophonePolicy
        switch settings.microphone {
        case .none, .route: microphone = .route
        case .device(let name): microphone = .chosen(name)
        case .file(let path): microphone = .fixed(.file(path: path))
        }
        let sender: UplinkSender?
        do {
            sender = settings.uplink.isEmpty ? nil : try UplinkSender(destinations: settings.uplink, logger: logger)
        } catch {
            throw .cannotUse(role: "uplink", what: settings.uplink.map(\.description).joined(separator: ", "), reason: error.description)
        }
        uplink = sender
        // The room exists once the engine does; until then (and without --room) frames go only to the sender.
        let roomBox = Mutex<(any JanusClassRoom)?>(nil)
        do {
            var engineConfiguration = AudioEngine.Configuration()
            engineConfiguration.outputBuffer = settings.outputBuffer
            // Only a sound-server output plays into a room the microphone hears; null and WAV do not.
            controller = try SessionController(output: settings.output, microphone: microphone, mixReachesMicrophone: settings.output.isSoundServer,
                                               engineConfiguration: engineConfiguration, logger: logger) { frame in
                sender?.send(frame)
                roomBox.withLock { $0 }?.send(frame)
            }
        } catch {
            throw .engineFailed(error.description)
        }
        if let address = settings.room {
            do {
                let joined: any JanusClassRoom = address.mode == .sfu
                    ? try JanusSFURoom(address: address, engine: controller.engine, jitterBuffer: settings.jitterBuffer, logger: logger)
                    : try JanusRoom(address: address, engine: controller.engine, jitterBuffer: settings.jitterBuffer, logger: logger)
                roomBox.withLock { $0 = joined }
                room = RoomPresence(room: joined, controller: controller, events: events)
            } catch {
                throw .cannotUse(role: "room", what: address.description, reason: PeerArgument.reason(error))
            }
        } else {
            room = nil
        }
        sessionCommands = SessionCommands(controller: controller, events: events, meter: meter, room: room, microphoneAllowed: settings.microphone != .none)
        let checkCompletion = Mutex<(@Sendable () -> Void)?>(nil)
        peers = PeerRoster(controller: controller, events: events, jitterBuffer: settings.jitterBuffer, logger: logger, queue: commands) { checkCompletion.withLock { $0 }?() }
        checkCompletion.withLock { $0 = { [weak self] in self?.checkCompletion() } }
    }

    // MARK: Running

    /// True once the run has been told how it ends (a stop, a signal, the lesson's end).
    var isEnding: Bool { state.withLock { $0.ending != nil } }

    /// How long a run waits for the sound server to play its output before it starts anyway.
    /// PulseAudio's idle null sink took 2.8-4.3 s to take a 20 ms output buffer in real time (1.6-2.3 s
    /// a 200 ms one); the player's own start comes on top.
    static let outputStartWait = Duration.seconds(8)

    /// Plays until the run ends; blocks the calling thread. Throws when it cannot start.
    func run() throws(PlayerError) -> RunOutcome {
        let sessionToken = controller.session.observe { [events, room] event in
            let entry = event.logEntry
            events.emit(entry.name, entry.fields)
            room?.followSession()
        }
        let engineToken = controller.engine.observe { [weak self] event in self?.handle(event) }
        // The echo path the engine measured, each time it applies a new one.
        let echoToken = controller.engine.observeEchoPath { [events] estimate in
            events.emit("echo-path", [("delay_ms", .number(Double(estimate.delay.nanoseconds) / 1e6)), ("confidence", .number(estimate.confidence))])
        }
        state.withLock { $0.tokens += [sessionToken, engineToken, echoToken] }
        do {
            try controller.start()
        } catch {
            controller.stop()
            throw .engineFailed("\(error.description) (output: \(settings.displayedOutput))")
        }
        do {
            try uplink?.start { [weak self] destination, message in self?.uplinkFailed(destination, message) }
        } catch {
            controller.stop()
            throw .cannotUse(role: "uplink", what: settings.uplink.map(\.description).joined(separator: ", "), reason: error.description)
        }
        // Feeds and the lesson start once the server plays us: a held stream dropped their first second.
        if !controller.engine.waitUntilOutputPlays(within: Self.outputStartWait, while: { [weak self] in self?.isEnding == false }),
           !isEnding {
            logger.warning("the sound server has not played the output in real time within \(Self.outputStartWait); the class starts anyway, and feeds may drop audio until it does")
        }
        do {
            try startPlaying()
        } catch {
            tearDown(failedWith: error)
            throw error
        }
        ended.wait()
        return tearDown()
    }

    func startPlaying() throws(PlayerError) {
        let session = controller.session
        // The courseware is primary playback; the live feed makes RTC live (the session's RTC policy applies).
        let courseware = try? session.lease(.playback, owner: "courseware")
        state.withLock { $0.coursewareLease = courseware }
        try room?.join { [weak self] error in
            guard let self else { return }
            commands.async { self.roomRefused(error) }
        }
        for peer in settings.peers {
            do {
                try peers.add(id: peer.id, source: peer.source, by: "command line")
            } catch {
                throw .cannotUse(role: "live feed", what: peer.source.description, reason: error.message)
            }
        }
        var lesson: LessonPlayer?
        do {
            let loaded = try controller.loadLesson(uri: settings.lessonURI, video: settings.video, audioTrack: settings.audioTrack)
            let lessonToken = loaded.observe { [weak self, weak loaded] event in self?.handle(event, from: loaded) }
            state.withLock { $0.lesson = loaded; $0.tokens.append(lessonToken) }
            try loaded.play()
            if let rate = settings.rate { try loaded.setRate(rate) }
            lesson = loaded
            state.withLock { if $0.lessonState == .loading { $0.lessonState = .playing } }
        } catch {
            // A lesson that cannot play ends the class only when nothing live is going on.
            guard classIsLive else { throw .lessonFailed(error) }
            commands.sync { lessonBroke(error.description) }
        }
        // Listening before "started" goes out, so a client that saw it can connect; it is served
        // below, once the run is set up (a connection waits in the backlog until then).
        var control: ControlSocket?
        if let path = settings.controlPath {
            control = try ControlSocket(path: path) { [events, logger] trouble in
                logger.warning("\(trouble)")
                events.emit("control-socket", [("message", .string(trouble))])
            }
            state.withLock { $0.control = control }
        }
        events.markPlayStarted()
        events.emit("started", [
            ("lesson", .string(settings.lessonURI)), ("duration", .maybe(lesson?.duration?.seconds)),
            ("output", .string(settings.displayedOutput.description)),
            ("peers", .array(settings.peers.map { .object([("id", .string($0.id)), ("source", .string($0.source.description))]) })),
            ("uplink", .array(settings.displayedUplink.map { .string($0) })),
            ("room", .maybe(settings.room?.description)),
            ("uplink_sdp", uplink.map { sender in .array(sender.sessionDescriptions.map { .string($0) }) } ?? .null),
            ("mic", .string(settings.microphone.description)), ("video", .string(settings.videoDescription)),
            ("route", session.currentRoute.json), ("configuration", session.configuration.json),
            ("output_buffer", .string(controller.engine.outputBuffer.setting.description)),
            ("output_buffer_ms", .number(Double(controller.engine.outputBuffer.size.milliseconds))),
            ("output_latency_ms", .number(Double(controller.engine.outputLatency.milliseconds))),
        ])
        if settings.micOnAtStart { commands.sync { connectMicrophoneAtStart() } }
        if let snapshots = settings.snapshots { startSnapshots(snapshots) }
        if let steps = settings.timeline {
            timeline.schedule(steps, isRunning: { [weak self] in self?.isEnding == false },
                              execute: { [weak self] (command, origin) throws(CommandError) in
                                  guard let self else { throw CommandError(.unavailable, "the player is stopping") }
                                  return try self.execute(command, from: origin)
                              },
                              emit: { [events] name, fields in events.emit(name, fields) },
                              stepDone: { [weak self] in self?.checkCompletion() })
        }
        control?.start { [weak self] line in self?.answer(line) ?? "" }
        if settings.readsStdin { StdinControl.start(console: console) { [weak self] line in self?.answer(line) ?? "" } }
        if console.showsProgress { startProgress() }
        for follower in followers { follower.runStarted(self) }
        commands.async { self.checkCompletion() }
    }

    /// Ends the run (the first reason wins).
    func finish(_ ending: RunEnding) {
        let first = state.withLock { state -> Bool in
            guard state.ending == nil else { return false }
            state.ending = ending
            return true
        }
        if first { ended.signal() }
    }

    /// Ends the run when everything it waits for is done. Runs on the command queue.
    func checkCompletion() {
        let stepsPending = timeline.pending
        let done = state.withLock { state -> Bool in
            let liveDone = !settings.untilLiveEnds || peers.allDone
            switch state.lessonState {
            case .ended: return settings.afterLesson == .exit && liveDone && stepsPending == 0
            // A broken lesson left the class to its live parts: it ends with them (--until-live-ends, no room) or on stop.
            case .failed: return settings.untilLiveEnds && peers.allDone && !roomGoesOn(state) && stepsPending == 0
            default: return false
            }
        }
        if done { finish(.completed) }
    }

    /// Whether something live goes on without the lesson: a peer, the room, the microphone.
    var classIsLive: Bool { !peers.ids.isEmpty || state.withLock { roomGoesOn($0) } || controller.isMicrophoneConnected }

    /// The lesson cannot play or broke mid-way: said, and the end of the class only when nothing
    /// live goes on. Runs on the command queue.
    func lessonBroke(_ why: String) {
        // Said once: a broken file also posts the errors that led to its failure.
        guard state.withLock({ state -> Bool in
            guard state.lessonState != .failed else { return false }
            state.lessonState = .failed
            state.lessonFailure = why
            return true
        }) else { return }
        let goesOn = classIsLive
        events.emit("lesson-failed", [("message", .string(why)), ("class_goes_on", .bool(goesOn))])
        if goesOn {
            logger.error("the lesson stopped (\(why)); the class goes on with its live feeds, room and microphone")
            checkCompletion()
        } else {
            finish(.lessonFailed(why))
        }
    }

    /// Stops everything and says `stopped`; with `failedWith`, the run could not start (its exit status is that error's).
    @discardableResult
    func tearDown(failedWith failure: PlayerError? = nil) -> RunOutcome {
        let (timers, control, snapshotter) = state.withLock { state in
            defer { state.timers.removeAll(); state.control = nil; state.snapshotter = nil }
            return (state.timers, state.control, state.snapshotter)
        }
        for timer in timers { timer.cancel() }
        for follower in followers { follower.runStopping() }
        console.clearProgress()
        control?.stop()
        commands.sync {}   // a command under way finishes before the engine goes
        snapshotter?.stop()
        peers.stopAll()
        room?.leave()      // leave and destroy the session while the engine still runs
        let lesson = controller.engine.input(id: "courseware")
        controller.stop()  // finalises a WAV output
        uplink?.stop()     // after the microphone went: finalises an uplink WAV
        let (ending, lessonFailure, outputFailure) = state.withLock { ($0.ending ?? .completed, $0.lessonFailure, $0.outputFailure) }
        let outcome = RunOutcome(ending: ending, lessonFailure: lessonFailure, outputFailure: outputFailure, summary: meter.summary)
        var fields = outcome.stoppedFields(output: settings.displayedOutput.description, failure: failure)
        if let snapshotter { fields.append(("snapshots", .number(Double(snapshotter.count)))) }
        fields += peers.totals
        if let room { fields.append(("room", room.status)) }
        // How the lesson's audio kept time into the mix: a start-up loss in CI once left no other trace.
        if let lesson {
            fields += [("lesson_resyncs", .number(Double(lesson.timelineResyncs))), ("lesson_dropped_pushes", .number(Double(lesson.droppedPushes)))]
        }
        if let uplink {
            fields += [("uplink_frames", .number(Double(uplink.framesSent))), ("uplink_dropped", .number(Double(uplink.framesDropped)))]
        }
        events.emit("stopped", fields)
        state.withLock { $0.tokens.removeAll() }
        return outcome
    }

    /// Microphone frames (10 ms) handed to the uplink destinations; nil without `--uplink`.
    var uplinkFramesSent: Int? { uplink?.framesSent }

    /// The number of events and alarms written.
    var eventCounts: (events: Int, alarms: Int) { (events.count, events.alarmCount) }

    // MARK: Control

    /// Answers one control line (standard input or the socket) with one JSON line.
    func answer(_ line: String) -> String {
        var id: JSON?
        let reply: JSON
        do throws(CommandError) {
            let request = try JSON.parse(line)
            id = request["id"]
            let command = try Command.parse(request, extra: ["id"], inTimeline: false)
            let fields = try perform(command, from: "control")
            reply = .object([("ok", .bool(true)), ("do", .string(command.verb))] + fields + (id.map { [("id", $0)] } ?? []))
        } catch {
            reply = error.answer(id: id)
        }
        return reply.serialized
    }

    /// Does one command on the command queue, as a control line would; for the adapters
    /// (MPRIS, systemd, metrics), so they change and read the player the same way.
    func perform(_ command: Command, from origin: String) throws(CommandError) -> [(String, JSON)] {
        // Opening a lesson can take seconds (a network source): off the queue, which goes on meanwhile.
        if case .load(let argument) = command { return try load(argument, from: origin, onQueue: false) }
        return try serially { () throws(CommandError) in try execute(command, from: origin) }
    }
}
