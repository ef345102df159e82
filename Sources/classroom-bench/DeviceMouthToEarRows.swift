import ClassroomEngine
import ClassroomNetwork
import Foundation

/// Mouth-to-ear latency as a listener has it (#21 item 1): through a real sound server, PulseAudio
/// and then PipeWire, each beside the platform's floor measured in the same run, and where the
/// time goes between the two kiosks. scripts/measure/mouth-to-ear.sh does one path in a server the
/// bench starts for it; this runs the paths, makes the rows and hands the budget to the chart.
enum DeviceMouthToEarRows {
    /// One path's result, as the script prints it.
    struct PathResult: Codable {
        let delays: [Double]
        let played: Int
        let expected: Int
        let arrived: Int
        let missing: [Int]
        let jitterBufferMs: Double?
        /// How late kiosk B's feed reached its mix (p99, the latest): what the mixer's wait covered.
        let lateP99Ms: Double?
        let lateMaxMs: Double?
        /// What kiosk B's FEC decoder held at the end: one packet once the stream lost one, else 0.
        let fecHeldMs: Double?
        var median: Double { delays.median }

        enum CodingKeys: String, CodingKey {
            case delays, played, expected, arrived, missing
            case jitterBufferMs = "jitter_buffer_ms"
            case lateP99Ms = "late_p99_ms"
            case lateMaxMs = "late_max_ms"
            case fecHeldMs = "fec_held_ms"
        }
    }

    /// The figures of one sound server, for the chart (docs/mouth-to-ear-budget.json).
    struct ServerBudget: Codable {
        let server: String
        let floor: Double?
        let kioskToKiosk: Double?
        let floorToKiosk: Double?
        let room: Double?
        /// The floor's sender and receiver through the same Janus room: Janus's own floor.
        let roomFloor: Double?
        /// Kiosk B's jitter buffer at the end of the kiosk → kiosk path and of the floor → kiosk one.
        let jitterBuffer: Double?
        let floorToKioskJitterBuffer: Double?
        let roomJitterBuffer: Double?
    }

    static let anchor = "ITU-T G.114: 150 ms one way, network included"
    /// What the issue measured before any of #21 (280 ms kiosk to kiosk, 387 ms through Janus, on PulseAudio).
    static let before = (kiosk: "280 ms", room: "387 ms")
    static let floorMethod = """
        The floor: gst-launch-1.0 pulsesrc (20 ms buffer) ► opusenc frame-size=10 ► rtpopuspay ► udpsink sync=false, and udpsrc ► \
        rtpjitterbuffer latency=10 ► rtpopusdepay ► opusdec ► pulsesink (20 ms buffer, sync=false).
        """
    static let rigMethod = """
        scripts/measure/mouth-to-ear.sh in a private sound server the bench starts (scripts/with-pulseaudio.sh, scripts/with-pipewire.sh): \
        one stereo null sink is both devices — kiosk A's microphone is a remap source of its left channel, kiosk B's speaker a remap sink \
        onto its right — so one capture of its monitor holds what was said and what was heard sample-aligned (two captures, one per \
        device, disagreed by tens of milliseconds). Twelve 40 ms tone bursts, a second apart, each another pitch, are played into the \
        left channel after 10 s of settling; a burst's delay is the right channel's onset minus the left's. Kiosks: the release \
        classroom-player, A with --mic on that source (voice profile: AEC, NS, AGC) and --uplink rtp://127.0.0.1:PORT?ptime=10, B with \
        --live rtp://127.0.0.1:PORT --output on that sink (adaptive jitter buffer). Through Janus: both join room 1234 of a private Janus \
        1.1 on loopback (janus://, plain RTP), B muted. Median of the bursts.
        """
    static let roomFloorMethod = """
        Janus's own floor: the floor's sender (with 20 ms Opus packets: the AudioBridge mixes one packet per participant per 20 ms tick) \
        and receiver, each joined to the same room as a plain-RTP participant with the kiosks' prebuffer \
        (\(JanusRoomAddress.defaultPrebuffer) packets) by scripts/measure/janus-rtp-join.py.
        """

    static func rows(chartDirectory: String) async -> [BenchmarkRow] {
        let player = URL(fileURLWithPath: (try? RunBenchmarks.executablePath()) ?? "").deletingLastPathComponent().appendingPathComponent("classroom-player").path
        guard FileManager.default.isExecutableFile(atPath: player) else {
            let error = BenchError("no classroom-player beside classroom-bench at \(player): build it in the same configuration (make bench does)")
            return ["PulseAudio", "PipeWire"].map { .notMeasured("Mouth-to-ear through \($0): kiosk → kiosk over RTP on loopback", unit: "ms", baseline: anchor, goal: "≤ the floor + 25 ms", method: rigMethod, error: error) }
        }
        var janus: Process?
        var roomURI: String?
        if let port = try? LocalPort.free(.tcp), let started = try? await JanusLauncher.start(port: port) {
            janus = started
            roomURI = "janus://127.0.0.1:\(port)/1234"
        }
        defer { if let janus { JanusLauncher.stop(janus) } }
        var rows: [BenchmarkRow] = []
        var budgets: [ServerBudget] = []
        for (server, wrapper) in [("PulseAudio", "scripts/with-pulseaudio.sh"), ("PipeWire", "scripts/with-pipewire.sh")] {
            FileHandle.standardError.write(Data("classroom-bench: mouth-to-ear through \(server): the floor, kiosk to kiosk, through Janus\n".utf8))
            let (serverRows, budget) = await measure(server: server, wrapper: wrapper, player: player, roomURI: roomURI)
            rows += serverRows
            budgets.append(budget)
        }
        writeBudget(budgets, directory: chartDirectory)
        return rows
    }

    private static func run(_ sender: String, _ receiver: String, wrapper: String, player: String, roomURI: String?) async throws -> PathResult {
        let port = try LocalPort.free(.udp)
        var environment = ["PLAYER=\(player)", "PORT=\(port)"]
        if let roomURI { environment.append("ROOM=\(roomURI)") }
        let outcome = try await ChildProcess.run("/usr/bin/env", environment + ["bash", wrapper, "bash", "scripts/measure/mouth-to-ear.sh", sender, receiver, "12"])
        let result = try ChildProcess.decode(PathResult.self, from: outcome, command: "scripts/measure/mouth-to-ear.sh \(sender) \(receiver)")
        guard !result.delays.isEmpty else { throw BenchError("none of \(result.played) bursts played into the microphone reached the speaker (\(sender) → \(receiver))") }
        return result
    }

    private static func measure(server: String, wrapper: String, player: String, roomURI: String?) async -> ([BenchmarkRow], ServerBudget) {
        func attempt(_ sender: String, _ receiver: String) async -> Result<PathResult, any Error> {
            do { return .success(try await run(sender, receiver, wrapper: wrapper, player: player, roomURI: roomURI)) } catch { return .failure(error) }
        }
        let floor = await attempt("floor", "floor")
        let kiosks = await attempt("kiosk", "kiosk")
        let toKiosk = await attempt("floor", "kiosk")
        let noJanus: Result<PathResult, any Error> = .failure(BenchError("the private Janus did not start"))
        let room = roomURI == nil ? noJanus : await attempt("kiosk-room", "kiosk-room")
        let roomFloor = roomURI == nil ? noJanus : await attempt("floor-room", "floor-room")
        let floorFigure = try? floor.get().median
        let floorText = floorFigure.map { "the floor in the same run: \(formatted($0, "ms")); " } ?? "the floor: not measured; "
        let roomFloorText = (try? roomFloor.get().median).map { "Janus's own floor (gst-launch through the same room) in the same run: \(formatted($0, "ms")); " } ?? ""

        func row(_ measure: String, _ result: Result<PathResult, any Error>, baseline: String, goal: String, allowance: Double?, method: String) -> BenchmarkRow {
            switch result {
            case .success(let path):
                let pass = allowance.flatMap { allowance in floorFigure.map { path.median <= $0 + allowance } }
                let spread = "\(path.arrived) of \(path.played) bursts arrived (min \(formatted(path.delays.min() ?? .nan, "ms")), max \(formatted(path.delays.max() ?? .nan, "ms")))"
                let jitter = path.jitterBufferMs.map { "; B's jitter buffer \(formatted($0, "ms")) at the end" } ?? ""
                let held = path.fecHeldMs.map { "; B's FEC decoder held \(formatted($0, "ms")) (a packet once the stream lost one)" } ?? ""
                let late = path.lateP99Ms.map { p99 in "; B's feed reached its mix \(formatted(p99, "ms")) late at p99 (latest \(formatted(path.lateMaxMs ?? .nan, "ms"))) against the mixer's \(AudioEngine.Configuration().mixerLatency.milliseconds) ms wait" } ?? ""
                return BenchmarkRow(measure: measure, value: path.median, unit: "ms", baseline: baseline, goal: goal, pass: pass, runs: path.arrived,
                                    method: "\(rigMethod) \(method) \(spread)\(jitter)\(held)\(late).")
            case .failure(let error):
                return .notMeasured(measure, unit: "ms", baseline: baseline, goal: goal, method: rigMethod + " " + method, error: error)
            }
        }
        var rows = [
            row("Mouth-to-ear floor through \(server): gst-launch sender → gst-launch receiver over RTP on loopback", floor,
                baseline: "the issue's figure on the test PulseAudio: 93–96 ms (another recording rig)", goal: "—", allowance: nil, method: floorMethod),
            row("Mouth-to-ear through \(server): kiosk → kiosk over RTP on loopback", kiosks,
                baseline: floorText + anchor + "; before #21: \(before.kiosk) (PulseAudio)", goal: "≤ the floor + 25 ms", allowance: 25, method: ""),
            row("Mouth-to-ear floor through \(server): gst-launch sender → Janus AudioBridge → gst-launch receiver on loopback", roomFloor,
                baseline: "the direct floor: the row above", goal: "—", allowance: nil, method: floorMethod + " " + roomFloorMethod),
            row("Mouth-to-ear through \(server): kiosk → Janus AudioBridge → kiosk on loopback", room,
                baseline: floorText + roomFloorText + anchor + "; before #21: \(before.room) (PulseAudio)", goal: "≤ the floor + 60 ms", allowance: 60, method: ""),
        ]
        // Where the time goes: the same floor sender into kiosk B gives the receiving side; kiosk A's
        // side is what A adds over the floor's sender.
        let budget = ServerBudget(server: server, floor: floorFigure, kioskToKiosk: try? kiosks.get().median, floorToKiosk: try? toKiosk.get().median,
                                  room: try? room.get().median, roomFloor: try? roomFloor.get().median, jitterBuffer: try? kiosks.get().jitterBufferMs,
                                  floorToKioskJitterBuffer: try? toKiosk.get().jitterBufferMs, roomJitterBuffer: try? room.get().jitterBufferMs)
        if let floor = budget.floor, let both = budget.kioskToKiosk, let receiving = budget.floorToKiosk {
            let engine = AudioEngine.Configuration()
            // B's adaptive buffer moves 10 ms per 3 s of calm, so each path's own size is taken out
            // before the two paths are compared.
            let jitter = budget.jitterBuffer ?? 0, receivingJitter = budget.floorToKioskJitterBuffer ?? 0
            let sendSide = (both - jitter) - (receiving - receivingJitter)
            let engineSide = both - floor - sendSide - (jitter - 10)
            let fecHeld = (try? kiosks.get().fecHeldMs) ?? .nan
            let janusOwn = budget.roomFloor.map { "; of that, Janus's own floor is \(formatted($0 - floor, "ms")) over the direct floor (20 ms packets, its queue of \(JanusRoomAddress.defaultPrebuffer) and its 20 ms mix)" } ?? ""
            let roomPart = budget.room.map { "; Janus (its pre-buffering, decode, mix, encode, and B's room jitter buffer of \(formatted(budget.roomJitterBuffer ?? 0, "ms"))) adds \(formatted($0 - both, "ms")) over the direct path\(janusOwn)" } ?? ""
            rows.append(BenchmarkRow(
                measure: "Mouth-to-ear budget through \(server): what the kiosks add over the floor", value: both - floor, unit: "ms",
                baseline: "the floor: \(formatted(floor, "ms"))", goal: "—", pass: nil, runs: 3,
                method: """
                    Three paths of the same run: floor → floor, floor sender → kiosk B, kiosk A → kiosk B, each with B's jitter buffer \
                    at its end taken out (it moves 10 ms per 3 s of calm). Kiosk A's side (capture from the source, the DSP, the uplink, \
                    Opus packets of 10 ms) beyond the floor's sender: \(formatted(sendSide, "ms")). Kiosk B's jitter buffer: \
                    \(formatted(jitter, "ms")) (the floor's holds 10 ms). The rest of kiosk B beyond the floor's receiver: \
                    \(formatted(engineSide, "ms")) — its decode, the FEC decoder's held packet (\(formatted(fecHeld, "ms")): a packet once the \
                    stream lost one), the PeerFeed's hand-over into the \
                    engine and the engine's pipeline latency (\(engine.pipelineLatency.milliseconds) ms: the mixer's \
                    \(engine.mixerLatency.milliseconds) ms wait, a 10 ms block, the output buffer's \(engine.outputBuffer.initial.milliseconds) ms) \
                    against pulsesink's 20 ms buffer, unsynchronised, at the floor\(roomPart). mouth-to-ear-budget.png beside this report draws it.
                    """))
        }
        return (rows, budget)
    }

    /// mouth-to-ear-budget.json in `directory`, and the stacked bars drawn from it beside it
    /// (mouth-to-ear-budget.png, by scripts/measure/budget-chart.py in .venv).
    private static func writeBudget(_ budgets: [ServerBudget], directory: String) {
        let json = URL(fileURLWithPath: directory).appendingPathComponent("mouth-to-ear-budget.json")
        let png = URL(fileURLWithPath: directory).appendingPathComponent("mouth-to-ear-budget.png")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(budgets), (try? data.write(to: json)) != nil else {
            FileHandle.standardError.write(Data("classroom-bench: could not write \(json.path)\n".utf8))
            return
        }
        let chart = Process()
        chart.executableURL = URL(fileURLWithPath: ".venv/bin/python")
        chart.arguments = ["scripts/measure/budget-chart.py", json.path, png.path]
        do {
            try chart.run()
            chart.waitUntilExit()
            if chart.terminationStatus == 0 { FileHandle.standardError.write(Data("classroom-bench: drew \(png.path)\n".utf8)) }
            if chart.terminationStatus != 0 { FileHandle.standardError.write(Data("classroom-bench: the budget chart failed (status \(chart.terminationStatus))\n".utf8)) }
        } catch {
            FileHandle.standardError.write(Data("classroom-bench: cannot draw the budget chart: \(error) (make bench makes .venv with scripts/python-venv.sh)\n".utf8))
        }
    }
}
