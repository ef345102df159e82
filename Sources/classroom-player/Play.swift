import ArgumentParser
import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// `classroom-player play LESSON [--live [ID=]FEED …] [--uplink SPEC …] [--mic …] [--output …] [--video …] [--script …] [--control …] [--events …]`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a lesson and a live feed through the classroom engine, headless.",
        discussion: PlayHelp.discussion
    )

    @Argument(help: "The lesson: a file path or a URI GStreamer can decode (file://, http://, …).")
    var lesson: String

    @Option(name: .long, help: ArgumentHelp(
        "A peer (teacher, classmate): its audio is pushed as PCM into an RTC input of its own. Repeatable.",
        discussion: "[ID=]FEED: a file (played in real time), rtp://HOST:PORT[?pt=N] (RTP/UDP with Opus on any dynamic payload type, listened for on HOST), srtp://HOST:PORT?key-file=FILE[&pt=N] (the same as SRTP, AES_CM_128_HMAC_SHA1_80; FILE holds the base64 key and salt as ffmpeg's -srtp_out_params takes them, readable by its owner only), an SDP file (Opus, PCMU, PCMA or L16 on any payload type; SRTP with an a=crypto line), or an rtsp://, srt://, http(s):// URI. Without ID= the peers are live-1, live-2 … At most \(PeerRoster.maximum) at once (the peer verb included).",
        valueName: "[id=]feed"))
    var live: [String] = []

    @Flag(name: .long, help: "Keep playing after the lesson until every live feed ends too (with --after-lesson exit).")
    var untilLiveEnds = false

    @Option(name: .long, help: ArgumentHelp(
        "What happens when the lesson ends: exit (the run ends), stay (the class goes on with its live feeds, room and microphone until stopped; 'load' starts another lesson), or loop (the lesson plays again from its start).",
        valueName: "exit|stay|loop"))
    var afterLesson: AfterLesson = .exit

    @Option(name: .long, help: ArgumentHelp(
        "Where the processed microphone goes. Repeatable.",
        discussion: "wav:PATH (finalised on every stop), rtp://HOST:PORT[?pt=N][&codec=opus|pcmu|pcma][&ptime=10|20|40|60][&fec=on|off] (Opus in 20 ms packets on payload type 111 unless ?pt=N, ?ptime=10 for 10 ms ones; in-band FEC unless fec=off; G.711 with codec=pcmu|pcma), srtp://HOST:PORT?key-file=FILE[&…] (the same as SRTP, AES_CM_128_HMAC_SHA1_80; the SDP then carries the key in a=crypto), or null. The uplink is silent, not absent, while the microphone is off or the session interrupted.",
        valueName: "spec"))
    var uplink: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Join a Janus room: the microphone goes up; an AudioBridge room's mix comes in as the peer 'room', a VideoRoom room's classmates (mode=sfu) each as a peer 'room-DISPLAY'.",
        discussion: "https://HOST[:PORT]/janus?room=ROOM[&ca=FILE][&…] joins as a WebRTC participant (ICE, DTLS-SRTP: the audio is encrypted; the join over HTTPS, the server's certificate verified against the system's CAs or the CA in FILE, a PEM; needs gstreamer1.0-nice). "
            + "http://HOST[:PORT]/janus?room=ROOM[&…] is the same with the join in the clear, for a network you trust. "
            + "janus://HOST[:PORT]/ROOM[?…] joins as a plain-RTP participant (unencrypted, for labs; the room must allow_rtp_participants). "
            + "mode=sfu (https:// and http:// only) joins a VideoRoom room instead: the server forwards each classmate's voice and this kiosk mixes them, one input each; mode=mix, the default, is an AudioBridge room. "
            + "Options, in the query: display=NAME, pin-file=F, token-file=F, apisecret-file=F, prebuffer=N (mode=mix only). The API is on port 8088 (8089 for https) unless given. The files hold the room's pin, a token_auth token, an API secret; each readable by its owner only (chmod 600). prebuffer: the 20 ms packets Janus buffers from this kiosk before mixing it, 1-50 (4 unless given). The kiosk is muted in the room while its microphone is off or the session is interrupted; a lost server or a failed connection is rejoined with backoff.",
        valueName: "https://host:port/janus?room=N"))
    var room: String?

    @Option(name: .long, help: ArgumentHelp("Write the SDP describing the RTP uplink here (receivers such as gst-launch's sdpdemux, ffplay or VLC open it).", valueName: "path"))
    var uplinkSdp: String?

    @Option(name: .long, help: ArgumentHelp(
        "The microphone: auto (the route's input device), a sound-server source name, an audio file played as the microphone, or none.",
        discussion: "A named source is the user's choice: it stays the microphone while it is connected; when it goes away the route's input takes over (event device-choice-ended).",
        valueName: "auto|device|file|none"), transform: MicChoice.parse)
    var mic: MicChoice = .auto

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Connect the microphone at start, as a first {\"do\":\"mic\",\"on\":true} would; also --mic-on=yes|no.",
        discussion: "When no microphone can be opened then, the class goes on without it and the 'microphone-failed' event says why; 'mic' connects it later."))
    var micOn = false

    @Option(name: .long, help: ArgumentHelp(
        "Where the mix goes: auto (the sound server's default output, else a WAV at --fallback-wav), default (the sound server's default only), a sound-server sink name, wav:PATH, or null.",
        discussion: "A named sink is the user's choice: the mix stays on it while it is connected, whatever the route would pick; when it goes away the route's output takes over (event device-choice-ended).",
        valueName: "auto|device|wav:path|null"), transform: OutputChoice.parse)
    var output: OutputChoice = .auto

    @Option(name: .long, help: ArgumentHelp("The WAV written by --output auto when no sound server answers.", valueName: "path"))
    var fallbackWav = "out/lesson-mix.wav"

    @Option(name: .long, help: ArgumentHelp(
        "Wait this long for a sound server to answer before giving up on one (a kiosk whose service starts before PulseAudio or PipeWire).",
        discussion: "Then --output auto falls back to its WAV, and an output or microphone that needs the server exits 69 (a service manager tries again). 0: do not wait.",
        valueName: "seconds"))
    var waitForServer: Double = 0

    @Option(name: .long, help: ArgumentHelp(
        "The lesson's audio track heard, of a lesson with several (a bilingual lesson): its number from 0, or its language code ('probe' lists them).",
        valueName: "n|lang"))
    var audioTrack: String?

    @Option(name: .long, help: ArgumentHelp("Play the lesson at this rate, 0.5 to 2, pitch kept.", valueName: "rate"))
    var rate: Double?

    @Option(name: .long, help: ArgumentHelp(
        "How long every RTP peer and the room hold packets for late ones, 10 to 1000 ms. Without it the jitter buffer follows the measured arrival jitter (from 20 ms: up at once, down slowly).",
        valueName: "ms"))
    var jitterBuffer: Int?

    @Option(name: .long, help: ArgumentHelp(
        "How much of the mix waits in the sound server ahead of the device, 10 to 500 ms; the output latency is this plus 20 ms (the mixer's wait and one 10 ms block). Without it the buffer starts at 30 ms and grows 20 ms at each underrun the device reports (to 200 ms), never shrinking.",
        valueName: "ms"))
    var outputBuffer: Int?

    @Option(name: .long, help: ArgumentHelp(
        "The lesson's picture: auto (a window when DISPLAY or WAYLAND_DISPLAY is set, else decoded and discarded), none, or snapshots:DIR (a PNG every --snapshot-interval seconds).",
        valueName: "auto|none|snapshots:dir"), transform: VideoChoice.parse)
    var video: VideoChoice = .auto

    @Option(name: .long, help: ArgumentHelp("Seconds between snapshots with --video snapshots:DIR.", valueName: "seconds"))
    var snapshotInterval: Double?

    @Option(name: .long, help: ArgumentHelp("A timeline for unattended runs: a JSON array of steps (see below).", valueName: "timeline"))
    var script: String?

    @Option(name: .long, help: ArgumentHelp("A Unix socket (created 0600) taking the JSON control lines described below.", valueName: "path"))
    var control: String?

    @Option(name: .long, help: ArgumentHelp("Write events and alarms as JSON lines to this file instead of standard error.", valueName: "path"))
    var events: String?

    @Option(name: .long, help: ArgumentHelp(
        "Serve Prometheus metrics at http://HOST:PORT/metrics (alarms by code, levels, peers, profile, route, interruptions, restarts, uptime).",
        discussion: "Port 0 picks a free port; the 'metrics-listening' event says which. An empty HOST (:PORT), 0.0.0.0 or :: listens on every interface, so anyone who reaches the machine reads the class's metrics (a 'metrics-server' warning says so); 127.0.0.1:PORT keeps them on the machine.",
        valueName: "host:port"))
    var metrics: String?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Be an MPRIS media player on the session bus (org.mpris.MediaPlayer2.classroom_player): playerctl and desktop controls pause, seek and read it.",
        discussion: "Default: on when a session bus exists (DBUS_SESSION_BUS_ADDRESS or $XDG_RUNTIME_DIR/bus)."))
    var mpris: Bool?

    @Flag(name: .long, help: "Do not read control lines from standard input (for background jobs).")
    var noStdin = false

    @Option(name: .long, help: ArgumentHelp("Log messages from this level up on standard error: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "warning"

    func validate() throws {
        if let rate, !(LessonRate.slowest...LessonRate.fastest).contains(rate) {
            throw ValidationError("--rate is from \(LessonRate.slowest) to \(LessonRate.fastest), not \(rate)")
        }
        if let outputBuffer, !(10...500).contains(outputBuffer) {
            throw ValidationError("--output-buffer is from 10 to 500 ms, not \(outputBuffer)")
        }
        if let jitterBuffer, !(10...1000).contains(jitterBuffer) {
            throw ValidationError("--jitter-buffer is from 10 to 1000 ms, not \(jitterBuffer)")
        }
        if untilLiveEnds, live.isEmpty { throw ValidationError("--until-live-ends needs --live FEED") }
        if untilLiveEnds, afterLesson != .exit {
            throw ValidationError("--until-live-ends ends the run after the live feeds; with --after-lesson \(afterLesson.rawValue) the run does not end with the lesson, so leave one out")
        }
        if micOn, mic == .none { throw ValidationError("--mic-on needs a microphone, and --mic is none") }
        if live.count > PeerRoster.maximum { throw ValidationError("--live is given \(live.count) times; \(PeerRoster.limitReason)") }
        if uplinkSdp != nil, !uplink.contains(where: { $0.lowercased().hasPrefix("rtp://") || $0.lowercased().hasPrefix("srtp://") }) {
            throw ValidationError("--uplink-sdp needs an RTP uplink (--uplink rtp://HOST:PORT or srtp://HOST:PORT?key-file=FILE)")
        }
        if let interval = snapshotInterval {
            guard case .snapshots = video else { throw ValidationError("--snapshot-interval needs --video snapshots:DIR") }
            guard interval.isFinite, interval >= 0.1 else { throw ValidationError("--snapshot-interval is at least 0.1 seconds, not \(interval)") }
        }
        if let metrics, metrics.lastIndex(of: ":").flatMap({ UInt16(metrics[metrics.index(after: $0)...]) }) == nil {
            throw ValidationError("--metrics takes HOST:PORT, e.g. 127.0.0.1:9464 (port 0 picks a free one), not '\(metrics)'")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level is one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not '\(logLevel)'")
        }
    }

    func run() throws {
        let console = Console(showsProgress: Console.stdoutIsTerminal)
        let level = Logger.Level(rawValue: logLevel) ?? .warning
        LoggingSystem.bootstrap { label in ConsoleLogHandler(label: label, console: console, logLevel: level) }
        let logger = Logger(label: "classroom-player")
        // Installed first, so a stop signal never kills the process with a WAV half written.
        // A signal before the run exists is kept and given to it: it starts and stops at once, so a
        // WAV is still written whole.
        let current = Mutex<(run: PlayerRun?, pending: Int32?)>((nil, nil))
        let signals = SignalWatcher(console: console) { number in
            let run = current.withLock { state -> PlayerRun? in
                if state.run == nil { state.pending = number }
                return state.run
            }
            run?.finish(.signal(number))
        }
        defer { signals.cancel() }
        let files = OutputFiles()
        var committed = false
        defer { if !committed { files.discard() } }   // nothing played: the old files stay as they were
        do {
            try GStreamer.initialize()
            let settings = try resolve(files: files, console: console)
            for note in files.notes.withLock({ $0 }) { console.err("classroom-player: \(note)") }
            let eventLog = try EventLog(path: events, console: console, journal: JournalEventSink(console: console))
            var followers: [any RunFollower] = [SystemdNotifier(logger: logger)].compactMap { $0 }
            let metricsServer = try metrics.map { address throws(PlayerError) in
                try MetricsServer(address: address) { [logger] trouble in
                    logger.warning("\(trouble)")
                    eventLog.emit("metrics-server", [("message", .string(trouble))])
                }
            }
            defer { metricsServer?.stop() }
            if let metricsServer {
                let exporter = MetricsExporter(events: eventLog)
                metricsServer.start { exporter.exposition() }
                followers.append(exporter)
                if metricsServer.listensOnEveryInterface {
                    let warning = "the metrics server listens on every interface (\(metricsServer.address)): anyone who reaches this machine can read the class's metrics; give 127.0.0.1:PORT to keep them on it"
                    logger.warning("\(warning)")
                    eventLog.emit("metrics-server", [("message", .string(warning))])
                }
                eventLog.emit("metrics-listening", [("address", .string(metricsServer.address)), ("port", .number(Double(metricsServer.port))),
                                                    ("path", .string("/metrics"))])
            }
            var mprisService: MPRISService?
            if mpris ?? MPRISService.sessionBusExists {
                let service = MPRISService(events: eventLog, logger: logger)
                do {
                    try service.connect()
                    followers.append(service)
                    mprisService = service
                    eventLog.emit("mpris-exported", [("name", .maybe(service.busName)), ("path", .string(MPRISService.objectPath))])
                } catch {
                    // Asked for by name, it must work; on by default, a missing bus only means no MPRIS.
                    if mpris == true { throw PlayerError.cannotUse(role: "MPRIS", what: "the session bus", reason: error.description) }
                    logger.notice("MPRIS is off: \(error.description)")
                }
            }
            defer { mprisService?.runStopping() }
            console.out(Play.destination(settings.displayedOutput))
            let run = try PlayerRun(settings: settings, console: console, events: eventLog, logger: logger, followers: followers)
            if let pending = current.withLock({ state -> Int32? in state.run = run; return state.pending }) { run.finish(.signal(pending)) }
            let outcome: RunOutcome
            do {
                outcome = try run.run()
            } catch {
                eventLog.close()
                throw error
            }
            let counts = run.eventCounts
            eventLog.close()
            committed = true
            for note in files.commit() { console.err("classroom-player: \(note)") }
            console.out(Play.summaryLine(outcome.summary, output: settings.displayedOutput, events: counts, eventsPath: events))
            if let frames = run.uplinkFramesSent {
                console.out("Uplink (the student's processed microphone, silent while it was off): \(String(format: "%.1f", Double(frames) / 100)) s of speech frames "
                            + "sent to \(settings.displayedUplink.joined(separator: ", ")).")
            }
            if outcome.status == .silentOutput {
                console.err("classroom-player: the output was silent (peak \(LevelMeter.Summary.format(outcome.summary.peakDB))): check the lesson's audio track, the feed and the volumes.")
            }
            if case .lessonFailed(let why) = outcome.ending { console.err("classroom-player: the lesson stopped: \(why)") }
            if case .cannotUse(let why) = outcome.ending { console.err("classroom-player: \(why)") }
            if case .outputFailed(let why) = outcome.ending { console.err("classroom-player: the run stopped: \(why)") }
            if let why = outcome.outputFailure { console.err("classroom-player: \(why)") }
            if outcome.status != .success { throw ExitCode(outcome.status.rawValue) }
        } catch let error as PlayerError {
            console.err("classroom-player: \(error.description)")
            if let option = error.option, let hint = UnitSettings()?.hint(for: option) { console.err("classroom-player: \(hint)") }
            throw ExitCode(error.exitStatus.rawValue)
        } catch let error as GStreamerError {
            console.err("classroom-player: \(error.description)")
            throw ExitCode(ExitStatus.playbackFailed.rawValue)
        }
    }

    /// The first line: where the sound goes.
    static func destination(_ output: OutputTarget) -> String {
        switch output {
        case .wavFile(let path): return "Writing the mix to \(path)"
        case .soundServer: return "Playing on \(output)"
        case .discard: return "Playing to nowhere (--output null)"
        }
    }

    /// The last line: what was played, how loud, how many events.
    static func summaryLine(_ summary: LevelMeter.Summary, output: OutputTarget, events: (events: Int, alarms: Int), eventsPath: String?) -> String {
        let what: String
        switch output {
        case .wavFile(let path): what = "Wrote \(path):"
        case .soundServer: what = "Played on \(output):"
        case .discard: what = "Played to nowhere:"
        }
        let level = summary.peakDB.isFinite && summary.peakDB >= LevelMeter.Summary.silenceFloor
            ? "level \(LevelMeter.Summary.format(summary.rmsDB)) RMS, peak \(LevelMeter.Summary.format(summary.peakDB))"
            : "silent (\(LevelMeter.Summary.format(summary.peakDB)))"
        let where_ = eventsPath.map { " (in \($0))" } ?? ""
        return "\(what) \(String(format: "%.1f", summary.seconds)) s, \(level); \(events.events) events, \(events.alarms) alarms\(where_)."
    }
}
