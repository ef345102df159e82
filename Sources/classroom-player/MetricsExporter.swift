import ClassroomAudio
import Foundation
import Prometheus
import Synchronization

/// The player's figures in Prometheus' text exposition, for `--metrics`: counters follow the
/// event log (alarms by code, interruptions, output losses, pipeline restarts), gauges are read
/// from the `status` answer at each scrape, so nothing here is a second copy of the player's state.
///
/// Names follow Prometheus' conventions: the `classroom_` namespace, base units (seconds),
/// `_total` on counters, levels in dBFS, and labels only from bounded sets (alarm codes,
/// profiles, ports, and the peer ids the operator configured).
final class MetricsExporter: RunFollower {
    private struct State {
        var run: PlayerRun?
        /// Gauges of peers, so a peer that left is unregistered rather than frozen.
        var peerGauges: [String: [Gauge]] = [:]
        /// The last cumulative figures seen in `status`, to turn them into counter increments.
        var lastPeerFigures: [String: Double] = [:]
        var lastUplinkDropped = 0.0
    }

    private let registry = PrometheusCollectorRegistry()
    private let started = ContinuousClock.now
    private let state = Mutex(State())

    init(events: EventLog) {
        for code in AlarmCode.allCases { _ = alarmCounter(code.number.map(String.init) ?? code.rawValue) }
        for name in Self.eventCounters.keys.sorted() { _ = eventCounter(name) }
        events.follow { [weak self] name, fields in self?.count(name, fields) }
    }

    func runStarted(_ run: PlayerRun) { state.withLock { $0.run = run } }

    func outputAdvanced() {}

    func runStopping() { state.withLock { $0.run = nil } }

    // MARK: Counters from events

    /// Events counted as they are written: event name → (metric name, help).
    private static let eventCounters: [String: (String, String)] = [
        "interruption-began": ("interruptions", "Interruptions of the audio session (another app, a call, the sound server)."),
        "output-lost": ("output_losses", "Times the output device or sound server went away."),
        "media-services-lost": ("media_services_losses", "Times the sound server was lost."),
        "media-services-reset": ("pipeline_restarts", "Times the audio pipeline was rebuilt after the sound server came back."),
        "engine-error": ("engine_errors", "Errors reported by the audio pipeline's elements."),
        "room-lost": ("room_losses", "Times the room was lost (the server gone, the WebRTC connection failed, Janus hung up) and rejoined with backoff."),
        "output-underrun": ("output_underruns", "Times the output device ran out of audio (each raises the output buffer unless --output-buffer fixed it)."),
    ]

    private func count(_ name: String, _ fields: [(String, JSON)]) {
        if name == "alarm" {
            let event = JSON.object(fields)
            var code = "unknown"
            if case .number(let number)? = event["number"] { code = String(Int(number)) } else if case .string(let raw)? = event["code"] { code = raw }
            alarmCounter(code).increment()
        } else if Self.eventCounters[name] != nil {
            eventCounter(name).increment()
        }
    }

    private func alarmCounter(_ code: String) -> Counter {
        registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "classroom", metricName: "alarms", unitName: "total",
                                                              helpText: "Alarms raised, by code (1025: RTC audio interrupted, 1032: playout level too low, …)."),
                             labels: [("code", code)])
    }

    private func eventCounter(_ event: String) -> Counter {
        let (name, help) = Self.eventCounters[event] ?? (event, event)
        return registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "classroom", metricName: name, unitName: "total", helpText: help))
    }

    // MARK: Gauges from status

    private func gauge(_ name: String, unit: String = "", _ help: String, labels: [(String, String)] = []) -> Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "classroom", metricName: name, unitName: unit, helpText: help), labels: labels)
    }

    /// Sets a gauge when the value is known and removes it when it is not (no made-up zero);
    /// returns it while it is exported.
    @discardableResult
    private func set(_ name: String, unit: String = "", _ help: String, _ value: JSON?, labels: [(String, String)] = []) -> Gauge? {
        let metric = gauge(name, unit: unit, help, labels: labels)
        switch value {
        case .number(let number)?: metric.set(to: number)
        case .bool(let flag)?: metric.set(to: flag ? 1.0 : 0.0)
        default:
            registry.unregisterGauge(metric)
            return nil
        }
        return metric
    }

    /// The exposition, with the gauges refreshed from the run's `status` answer.
    func exposition() -> String {
        gauge("uptime", unit: "seconds", "Seconds since the player started.").set(to: (ContinuousClock.now - started) / .seconds(1))
        if let run = state.withLock({ $0.run }), let fields = try? run.perform(.status, from: "metrics") {
            refresh(from: .object(fields))
        }
        return registry.emitToString()
    }

    /// A status figure in ms as the seconds Prometheus wants; nil where the status has no number.
    private static func seconds(fromMilliseconds figure: JSON?) -> JSON? {
        guard case .number(let ms)? = figure else { return nil }
        return .number(ms / 1000)
    }

    private func refresh(from status: JSON) {
        let lesson = status["lesson"]
        set("lesson_position", unit: "seconds", "Position in the lesson.", lesson?["position"])
        set("lesson_duration", unit: "seconds", "Length of the lesson.", lesson?["duration"])
        if case .string(let now)? = lesson?["state"] { set("lesson_playing", "1 while the lesson plays, 0 when paused, ended or loading.", .bool(now == "playing")) }
        set("output_buffer", unit: "seconds", "Audio waiting in the sound server ahead of the output device.",
            Self.seconds(fromMilliseconds: status["output"]?["buffer_ms"]))
        set("output_latency", unit: "seconds", "How long after it is mixed a sample is played.",
            Self.seconds(fromMilliseconds: status["output"]?["latency_ms"]))
        set("output_level", unit: "dbfs", "Latest RMS level of the output mix, loudest channel, in dBFS.", status["levels"]?["output_db"])
        set("microphone_level", unit: "dbfs", "Latest RMS level of the processed microphone, in dBFS (absent while it is off).", status["levels"]?["mic_db"])
        set("microphone_connected", "1 while the microphone is connected.", status["mic"]?["connected"])
        set("microphone_gain", unit: "db", "The uplink level control's gain after the echo canceller, in dB (absent while the microphone is off).", status["mic"]?["gain_db"])
        // The echo path the engine measured (absent until it has one, and while the microphone is off).
        set("echo_path_delay", unit: "seconds", "Echo path the canceller follows: speaker to microphone plus unreported device latency.",
            Self.seconds(fromMilliseconds: status["mic"]?["echo_path"]?["delay_ms"]))
        set("echo_path_confidence", "Confidence of that echo-path estimate, 0 to 1.", status["mic"]?["echo_path"]?["confidence"])
        let session = status["session"]
        set("interrupted", "1 while the audio session is interrupted.", session?["interrupted"])
        set("ducked", "1 while the courseware is ducked.", session?["ducked"])
        if case .string(let profile)? = session?["profile"] {
            for candidate in ProcessingProfile.allCases {
                set("processing_profile", "The processing profile in force (1) among all (0): media, voice or raw.", .bool(candidate.rawValue == profile), labels: [("profile", candidate.rawValue)])
            }
        }
        var port: String?
        if case .string(let value)? = session?["route"]?["output"]?["port"] { port = value }
        for candidate in Port.allCases where candidate.isOutput {
            set("output_port", "The output port of the route (1) among all (0).", .bool(candidate.rawValue == port), labels: [("port", candidate.rawValue)])
        }
        // A VideoRoom's classmates are peers of the class too (`room-<display>`), bounded by the room's size.
        var peers: [JSON] = []
        if case .array(let list)? = status["peers"] { peers += list }
        if case .array(let list)? = status["room"]?["classmates"] { peers += list }
        refreshPeers(peers)
        refreshRoom(status["room"])
        if case .number(let dropped)? = status["uplink"]?["dropped"] {
            let counter = registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "classroom", metricName: "uplink_dropped_frames", unitName: "total",
                                                                                helpText: "Microphone frames the uplink could not send in time."))
            let increment = state.withLock { state -> Double in defer { state.lastUplinkDropped = dropped }; return max(0, dropped - state.lastUplinkDropped) }
            if increment > 0 { counter.increment(by: increment) }
        }
    }

    private func refreshPeers(_ list: [JSON]) {
        var seen: [String: [Gauge]] = [:]
        for peer in list {
            guard case .string(let id)? = peer["peer"] ?? peer["id"] else { continue }
            let labels = [("peer", id)]
            seen[id] = [set("peer_receiving", "1 while packets or samples arrive from the peer.", peer["receiving"], labels: labels),
                        set("peer_level", unit: "dbfs", "Latest RMS level of the peer's audio, in dBFS.", peer["level_db"], labels: labels),
                        set("peer_jitter_buffer", unit: "seconds", "How long the peer's RTP jitter buffer holds packets now (adaptive unless --jitter-buffer).",
                            Self.seconds(fromMilliseconds: peer["jitter_buffer_ms"]), labels: labels),
                        ].compactMap { $0 }
            countPeerFigure(peer["dropped"], as: "peer_dropped_pushes", "Pushes of a peer's audio the mix dropped (it fell behind).", peer: id)
            countPeerFigure(peer["rejected_packets"], as: "peer_rejected_packets",
                            "RTP packets a peer's port dropped: another sender or payload type than the one it plays, or not RTP.", peer: id)
        }
        let gone = state.withLock { state -> [Gauge] in
            defer { state.peerGauges = seen }
            return state.peerGauges.filter { seen[$0.key] == nil }.flatMap(\.value)
        }
        for metric in gone { registry.unregisterGauge(metric) }
    }

    /// The room's gauges: joined, encrypted, and the WebRTC connection's state one-hot (absent without a room).
    private func refreshRoom(_ room: JSON?) {
        set("room_joined", "1 while the conferencing room is joined.", room?["joined"])
        set("room_encrypted", "1 when the room's audio is encrypted (WebRTC, DTLS-SRTP), 0 for plain RTP.", room?["encrypted"])
        guard case .string(let media)? = room?["media"], media == "webrtc" else { return }
        var now: String?
        if case .string(let value)? = room?["connection"] { now = value }
        for candidate in ["new", "connecting", "connected", "disconnected", "failed", "closed"] {
            set("room_connection_state", "The room's WebRTC connection state (1) among all (0).", .bool(candidate == now), labels: [("state", candidate)])
        }
    }

    /// Turns a peer's cumulative figure from `status` into increments of the counter `metric`.
    private func countPeerFigure(_ figure: JSON?, as metric: String, _ help: String, peer id: String) {
        guard case .number(let value)? = figure else { return }
        let counter = registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "classroom", metricName: metric, unitName: "total", helpText: help),
                                           labels: [("peer", id)])
        let increment = state.withLock { state -> Double in
            let last = state.lastPeerFigures["\(metric) \(id)"] ?? 0
            state.lastPeerFigures["\(metric) \(id)"] = value
            return value >= last ? value - last : value   // a peer added again under the same id starts from 0
        }
        if increment > 0 { counter.increment(by: increment) }
    }
}
