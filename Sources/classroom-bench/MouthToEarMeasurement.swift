import ClassroomEngine
import ClassroomMeasurement
import ClassroomNetwork
import Foundation
import GStreamer
import Logging
import Synchronization

/// Mouth-to-ear latency between two kiosks over RTP on loopback: a tone burst pushed into kiosk
/// A's microphone → A's DSP → the uplink callback → `UplinkSender` (Opus, 20 ms packets) → UDP →
/// kiosk B's `PeerFeed` (jitter buffer, decoder) → B's RTC input → mixer → output sink.
enum MouthToEarMeasurement {
    static let measure = "Mouth-to-ear latency: kiosk A's microphone → kiosk B's output over RTP on loopback (Opus, 20 ms packets)"
    static let baseline = "ITU-T G.114: ≤ 150 ms one-way keeps most conversations transparent, and that must also cover the network"
    static let goal = "≤ 100 ms on loopback"

    /// The burst: 40 ms of 1 kHz at −12 dBFS, loud enough to stand out after noise suppression and Opus.
    private static let burst: [Int16] = (0..<1_920).map { Int16(8_000 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }
    /// What counts as the burst's arrival (dBFS of a sample): far above silence, below the burst.
    private static let threshold: Int16 = 1_000

    /// How A's uplink reaches B.
    enum Path: Sendable {
        /// A's UplinkSender straight to B's PeerFeed on loopback.
        case direct
        /// Both kiosks in one Janus room as `--room` takes it: AudioBridge (janus:// plain RTP, http(s):// WebRTC)
        /// or VideoRoom (`mode=sfu`).
        case room(uri: String)
    }

    static func rows(runs: Int, logger: Logger) async -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        var direct: Double?
        let method = """
            Two SessionControllers in one process (headless outputs: fakesink in real time, no device buffer), A with a pushed \
            microphone and the voice profile (AEC, NS, AGC). A feeder pushes a 10 ms frame every 10 ms into A's microphone; every \
            second one 40 ms 1 kHz burst. Times on CLOCK_MONOTONIC (the engines' clock): the burst's push; the uplink callback whose \
            frame holds its onset (capture → DSP → callback); the moment B's output renders the onset (the sink's buffer running \
            time + the pipeline latency, converted to the clock). Median of the bursts.
            """
        do {
            let result = try await measure(.direct, runs: runs, logger: logger)
            direct = result.median
            rows.append(BenchmarkRow(measure: measure, value: result.median, unit: "ms", baseline: baseline, goal: goal, pass: result.median <= 100,
                                     runs: result.count, method: method + " A's uplink callback feeds an UplinkSender to 127.0.0.1; B receives it with a PeerFeed." + result.parts))
        } catch {
            rows.append(.notMeasured(measure, unit: "ms", baseline: baseline, goal: goal, method: method, error: error))
        }
        let janusMeasure = "Mouth-to-ear latency: kiosk A → Janus AudioBridge → kiosk B on loopback (plain RTP, Opus)"
        let janusBaseline = "the direct kiosk → kiosk figure above" + (direct.map { ": \(formatted($0, "ms"))" } ?? "")
        var janus: Process?
        do {
            let port = try LocalPort.free(.tcp)
            janus = try await JanusLauncher.start(port: port)
            let result = try await measure(.room(uri: "janus://127.0.0.1:\(port)/1234"), runs: runs, logger: logger)
            rows.append(BenchmarkRow(measure: janusMeasure, value: result.median, unit: "ms", baseline: janusBaseline, goal: goal, pass: result.median <= 100,
                                     runs: result.count, method: method + " Both kiosks are JanusRooms in room 1234 of a private Janus 1.1 (scripts/janus-server.sh): "
                                         + "A's frames go up as Opus RTP, Janus decodes, mixes (20 ms frames, its own jitter buffer), encodes and sends B the mix." + result.parts))
        } catch {
            rows.append(.notMeasured(janusMeasure, unit: "ms", baseline: janusBaseline, goal: goal, method: method, error: error))
        }
        if let janus { JanusLauncher.stop(janus) }
        return rows
    }

    /// The figures of one path: the median, how many bursts arrived, and the parts as prose; for a
    /// room, how long each kiosk took from its join request to `joined` and to the room's first audio (ms).
    struct Result: Codable {
        let median: Double
        let count: Int
        let parts: String
        var joined: [Double] = []
        var firstAudio: [Double] = []
    }

    static func measure(_ path: Path, runs: Int, logger: Logger) async throws -> Result {
        let pushedAt = Mutex<UInt64?>(nil)
        let calledBack = Mutex<[UInt64]>([])
        let rendered = Mutex<[UInt64]>([])
        let forward = Mutex<(@Sendable (UplinkFrame) -> Void)?>(nil)
        let a = try SessionController(output: .discard, microphone: .fixed(.pushed), logger: logger) { frame in
            forward.withLock { $0 }?(frame)
            if frame.samples.contains(where: { abs(Int($0)) > Int(threshold) }), pushedAt.withLock({ $0 }) != nil {
                calledBack.withLock { $0.append(ProcessMeters.monotonicNanoseconds()) }
            }
        }
        let b = try SessionController(output: .discard, logger: logger)
        try a.start(); try b.start()
        defer { a.stop(); b.stop() }
        var cleanups: [() -> Void] = []
        defer { for cleanup in cleanups.reversed() { cleanup() } }
        var jitterBufferDelay: () -> ClockTime? = { nil }
        // What B's FEC decoder holds (a packet once the stream lost one); a room's receiver decodes none.
        var fecHeld: () -> ClockTime? = { nil }
        var joinTimes: (joined: [Double], firstAudio: [Double]) = ([], [])
        switch path {
        case .direct:
            let port = try LocalPort.free(.udp)
            let sender = try UplinkSender(destinations: [.rtp(try RTPEndpoint(host: "127.0.0.1", port: port))], logger: logger)
            try sender.start()
            cleanups.append { sender.stop() }
            forward.withLock { $0 = { sender.send($0) } }
            let input = try b.engine.addRTCInput(id: "rtc-kiosk-a", format: PeerFeed.format)
            let feed = try PeerFeed(source: .rtp(address: "127.0.0.1", port: port, payloadType: nil), input: input, logger: logger)
            try feed.start { _ in }
            cleanups.append { feed.stop() }
            jitterBufferDelay = { feed.jitterBufferDelay }
            fecHeld = { feed.fecHeld }
        case .room(let uri):
            let addressA = try JanusRoomAddress(uri: uri, defaultDisplay: "bench-a"), addressB = try JanusRoomAddress(uri: uri, defaultDisplay: "bench-b")
            if addressA.mode == .sfu {
                let roomA = try JanusSFURoom(address: addressA, engine: a.engine, logger: logger)
                let roomB = try JanusSFURoom(address: addressB, engine: b.engine, logger: logger)
                cleanups.append { roomA.leave(); roomB.leave() }
                // Each kiosk's first audio is its classmate's stream (B's carries silence: it is muted).
                joinTimes = try await joinBoth(roomA, roomB, uri: uri) { room in room.classmates.contains { $0.seconds > 0 } }
                forward.withLock { $0 = { roomA.send($0) } }
                jitterBufferDelay = { roomB.classmates.first?.jitterBuffer }
            } else {
                let roomA = try JanusRoom(address: addressA, engine: a.engine, logger: logger)
                let roomB = try JanusRoom(address: addressB, engine: b.engine, logger: logger)
                cleanups.append { roomA.leave(); roomB.leave() }
                // Janus sends the mix, silence included, once one has joined.
                joinTimes = try await joinBoth(roomA, roomB, uri: uri) { $0.reception.seconds > 0 }
                forward.withLock { $0 = { roomA.send($0) } }
                jitterBufferDelay = { roomB.reception.jitterBuffer }
            }
        }
        try a.connectMicrophone()
        let latency = b.engine.configuration.pipelineLatency
        let engineB = b.engine
        let tap = try engineB.tapOutput { buffer in
            guard let pts = buffer.pts, let now = engineB.runningTime else { return }
            let samples = buffer.int16Samples()
            guard let index = samples.firstIndex(where: { abs(Int($0)) > Int(threshold) }) else { return }
            // Rendered at running time pts + latency (+ the onset's place in the buffer, stereo).
            let onset = pts + latency + .frames(index / 2, rate: 48_000)
            let delay = Int64(onset.nanoseconds) - Int64(now.nanoseconds)
            let at = UInt64(Int64(ProcessMeters.monotonicNanoseconds()) + delay)
            rendered.withLock { if $0.last.map({ at > $0 + 200_000_000 }) ?? true { $0.append(at) } }
        }
        defer { tap?.remove() }
        let engineA = a.engine
        let silence = [Int16](repeating: 0, count: 480)
        let bursts = Mutex<[UInt64]>([])
        let feeder = RealTimeFeeder(count: (runs + 2) * 100) { tick in
            guard let microphone = engineA.uplink?.pushedInput, let now = engineA.runningTime else { return }
            // After 1.5 s of warm-up, a burst every second, in four frames.
            let phase = tick % 100, inBurst = tick >= 150 && phase < 4
            let frame = inBurst ? Array(burst[(phase * 480)..<((phase + 1) * 480)]) : silence
            if inBurst, phase == 0 {
                let pushed = ProcessMeters.monotonicNanoseconds()
                bursts.withLock { $0.append(pushed) }
                pushedAt.withLock { $0 = pushed }
            }
            _ = try? microphone.push(frame, pts: now)
        }
        feeder.join()
        try await Task.sleep(for: .milliseconds(500))
        let pushes = bursts.withLock { $0 }, callbacks = firstAfter(pushes, calledBack.withLock { $0 }), outputs = firstAfter(pushes, rendered.withLock { $0 })
        var total: [Double] = [], capture: [Double] = []
        for (index, pushed) in pushes.enumerated() {
            if let out = outputs[index] { total.append(Double(out - pushed) / 1e6) }
            if let back = callbacks[index] { capture.append(Double(back - pushed) / 1e6) }
        }
        guard !total.isEmpty else { throw BenchError("none of \(pushes.count) bursts reached kiosk B's output") }
        let median = total.median, microphone = capture.isEmpty ? Double.nan : capture.median
        let jitterBuffer = jitterBufferDelay()?.milliseconds ?? 0
        // The uplink mixer is not in the sum: a frame on its grid leaves it at once (0.05 ms measured, WORKAROUNDS §24).
        // B decodes A's FEC (one 20 ms packet held once the stream lost one); Janus's mix carries none, so a room's receiver conceals only.
        let fec = fecHeld()?.milliseconds ?? 0
        let forwarded = { if case .room(let uri) = path { return (try? JanusRoomAddress(uri: uri))?.mode == .sfu } else { return false } }()
        let packetTime = forwarded ? JanusSFURoom.packetTime : 20
        let configured = Double(packetTime + jitterBuffer + fec + latency.milliseconds)
        let server = { if case .room = path { return forwarded ? " plus Janus's forwarding (no decode, mix or encode)" : " plus Janus's own decode, mix and encode" } else { return "" } }()
        let fecPart = forwarded ? "Opus FEC decoding as from a direct peer (its hold is not read here, 0 in the sum)"
            : "Opus FEC decoding \(fec) ms (one packet held for the next one's FEC once the stream lost one; none from Janus, whose mix has no FEC)"
        let parts = """
             Parts: capture → DSP → uplink callback \(formatted(microphone, "ms")) (measured; a pushed microphone has no capture \
            buffer — pulsesrc adds its 10 ms period); uplink mixer none (a frame on its grid leaves at once; its \
            \(UplinkSender.frameJitter.milliseconds) ms latency is the deadline for a missing one); \
            Opus packetisation \(packetTime) ms; loopback ≈ 0\(server); jitter buffer \(jitterBuffer) ms at the end (adaptive: it follows the measured arrival jitter); \
            \(fecPart); the engine's \
            pipeline latency \(latency.milliseconds) ms (the mixer's wait, one 10 ms block, the output buffer); sink: none here \
            (a sound-server device adds its buffer). Configured parts after the callback sum to \(Int(configured)) ms; the rest is \
            codec look-ahead and scheduling. The engine's pipeline latency is the largest part. \(total.count) of \(pushes.count) bursts arrived; min \(formatted(total.min() ?? .nan, "ms")), \
            max \(formatted(total.max() ?? .nan, "ms")).
            """
        return Result(median: median, count: total.count, parts: parts, joined: joinTimes.joined, firstAudio: joinTimes.firstAudio)
    }

    /// Joins A (talking) and B (muted) and waits until each has joined and `heard` says the room's
    /// audio reached it: each kiosk's ms from the join requests to `joined` and to that audio.
    private static func joinBoth<Room: JanusClassRoom>(_ roomA: Room, _ roomB: Room, uri: String, heard: (Room) -> Bool) async throws -> (joined: [Double], firstAudio: [Double]) {
        // A room joins on its own thread: each says when it has.
        let joined = DispatchSemaphore(value: 0)
        let requested = ProcessMeters.monotonicNanoseconds()
        let joinedAt = Mutex<[UInt64]>([])
        let onEvent: @Sendable (JanusRoom.Event) -> Void = { if case .joined = $0 { joinedAt.withLock { $0.append(ProcessMeters.monotonicNanoseconds()) }; joined.signal() } }
        try roomA.join(muted: false, onEvent: onEvent)
        try roomB.join(muted: true, onEvent: onEvent)
        guard joined.wait(timeout: .now() + 12) == .success, joined.wait(timeout: .now() + 12) == .success, roomA.isJoined, roomB.isJoined else { throw BenchError("the kiosks could not join \(uri)") }
        var heardAt: [UInt64?] = [nil, nil]
        let deadline = ProcessMeters.monotonicNanoseconds() + 10_000_000_000
        while heardAt.contains(where: { $0 == nil }), ProcessMeters.monotonicNanoseconds() < deadline {
            for (index, room) in [roomA, roomB].enumerated() where heardAt[index] == nil && heard(room) { heardAt[index] = ProcessMeters.monotonicNanoseconds() }
            try await Task.sleep(for: .milliseconds(2))
        }
        return (joinedAt.withLock { $0 }.map { Double($0 - requested) / 1e6 }, heardAt.compactMap { $0 }.map { Double($0 - requested) / 1e6 })
    }

    /// For each moment in `starts`, the first of `events` after it and before the next start.
    static func firstAfter(_ starts: [UInt64], _ events: [UInt64]) -> [UInt64?] {
        starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1] : UInt64.max
            return events.first { $0 >= start && $0 < end }
        }
    }
}
