import ClassroomMeasurement
import Foundation

/// The rooms over WebRTC (an AudioBridge, and a VideoRoom whose kiosks mix) beside the AudioBridge
/// over plain RTP, all through the same private Janus in a network namespace of its own and two
/// kiosks in another (libnice skips loopback): mouth-to-ear, the time from the join request to the
/// room's audio, and the CPU of the kiosks. Each path runs in a worker process (`worker room`)
/// inside the kiosks' namespace, so its CPU is its own.
enum WebRTCRoomRows {
    static func rows(executable: String, bursts: Int) async -> [BenchmarkRow] {
        let method = """
            Janus 1.1.2 (scripts/janus-server.sh) in one network namespace, two kiosks (SessionControllers with headless outputs, \
            A's pushed microphone in the voice profile, a 40 ms 1 kHz burst every second) in one worker process in another, a veth \
            between them. WebRTC: --room http://JANUS:8088/janus?room=2222 (webrtcbin, DTLS-SRTP). Plain RTP: \
            janus://JANUS:8088/1234. VideoRoom: http://JANUS:8088/janus?room=5555&mode=sfu (Janus forwards A's 10 ms Opus packets, \
            B mixes them in an input of its own). All with the adaptive jitter buffer (webrtcbin's own, moved by the same control). Mouth-to-ear as in the loopback rows (median of the bursts); join: \
            from both join requests to each kiosk's `joined` and to the room's first audio pushed into its engine (the slower kiosk); \
            CPU: the worker's user+system seconds (wait4) over its wall seconds, start-up, joins and \(bursts + 2) s of class included.
            """
        let names = (mouthToEar: "Mouth-to-ear latency: kiosk A → Janus AudioBridge → kiosk B over WebRTC (DTLS-SRTP, Opus), Janus on another host (network namespaces)",
                     join: "Room join over WebRTC: join request → the room's audio arriving (the slower of two kiosks)",
                     cpu: "CPU per second of two kiosks in a WebRTC room (one process)",
                     sfu: "Mouth-to-ear latency: kiosk A → Janus VideoRoom → kiosk B over WebRTC (DTLS-SRTP, Opus), Janus on another host (network namespaces)",
                     sfuJoin: "VideoRoom join: join request → the classmate's audio arriving (the slower of two kiosks)",
                     sfuCPU: "CPU per second of two kiosks in a VideoRoom room (one process)")
        func unmeasured(_ error: any Error) -> [BenchmarkRow] {
            [BenchmarkRow.notMeasured(names.mouthToEar, unit: "ms", baseline: "the plain-RTP room", goal: "—", method: method, error: error),
             BenchmarkRow.notMeasured(names.join, unit: "ms", baseline: "the plain-RTP room", goal: "—", method: method, error: error),
             BenchmarkRow.notMeasured(names.cpu, unit: "%", baseline: "the plain-RTP room", goal: "—", method: method, error: error),
             BenchmarkRow.notMeasured(names.sfu, unit: "ms", baseline: "the AudioBridge room over WebRTC", goal: "—", method: method, error: error),
             BenchmarkRow.notMeasured(names.sfuJoin, unit: "ms", baseline: "the AudioBridge room over WebRTC", goal: "—", method: method, error: error),
             BenchmarkRow.notMeasured(names.sfuCPU, unit: "%", baseline: "the AudioBridge room over WebRTC", goal: "—", method: method, error: error)]
        }
        guard NetworkNamespaces.available else { return unmeasured(BenchError("network namespaces need root and iproute2; WebRTC needs a real interface (libnice skips loopback)")) }
        do {
            let net = try NetworkNamespaces()
            defer { net.tearDown() }
            let janus = try await JanusLauncher.start(port: 8088, in: net)
            defer { JanusLauncher.stop(janus) }
            func run(_ uri: String) async throws -> (MouthToEarMeasurement.Result, cpu: Double) {
                let arguments = net.exec(in: net.kiosks, [executable, "worker", "room", "--uri", uri, "--bursts", "\(bursts)"])
                let outcome = try await ChildProcess.run("/usr/sbin/ip", arguments)
                let result = try ChildProcess.decode(MouthToEarMeasurement.Result.self, from: outcome, command: "worker room --uri \(uri)")
                return (result, 100 * outcome.cpuSeconds / max(outcome.wallSeconds, 0.001))
            }
            let plain = try await run("janus://\(net.serverAddress):8088/1234")
            let webRTC = try await run("http://\(net.serverAddress):8088/janus?room=2222")
            let sfu = try await run("http://\(net.serverAddress):8088/janus?room=5555&mode=sfu")
            func joinFigures(_ result: MouthToEarMeasurement.Result) -> String {
                "joined after \(result.joined.map { formatted($0, "ms") }.joined(separator: " and ")), the room's audio after \(result.firstAudio.map { formatted($0, "ms") }.joined(separator: " and "))"
            }
            let slowest = { (result: MouthToEarMeasurement.Result) in result.firstAudio.count == 2 ? result.firstAudio.max() : nil }
            return [
                BenchmarkRow(measure: names.mouthToEar, value: webRTC.0.median, unit: "ms",
                             baseline: "the plain-RTP room through the same namespaces: \(formatted(plain.0.median, "ms"))", goal: "—", pass: nil, runs: webRTC.0.count,
                             method: method + " WebRTC: \(webRTC.0.count) bursts arrived." + webRTC.0.parts + " Plain RTP: \(plain.0.count) bursts arrived."),
                BenchmarkRow(measure: names.join, value: slowest(webRTC.0), unit: "ms",
                             baseline: "the plain-RTP room: \(slowest(plain.0).map { formatted($0, "ms") } ?? "not measured")", goal: "—", pass: nil, runs: 1,
                             method: method + " WebRTC: \(joinFigures(webRTC.0)) (ICE gathering ~200 ms before the join is sent, then ICE checks and DTLS). Plain RTP: \(joinFigures(plain.0))."),
                BenchmarkRow(measure: names.cpu, value: webRTC.cpu, unit: "%", baseline: "the plain-RTP room: \(formatted(plain.cpu, "%"))", goal: "—", pass: nil, runs: 1,
                             method: method + " A core is 100 %."),
                BenchmarkRow(measure: names.sfu, value: sfu.0.median, unit: "ms",
                             baseline: "the AudioBridge room over WebRTC through the same namespaces: \(formatted(webRTC.0.median, "ms"))", goal: "—", pass: nil, runs: sfu.0.count,
                             method: method + " VideoRoom: \(sfu.0.count) bursts arrived." + sfu.0.parts),
                BenchmarkRow(measure: names.sfuJoin, value: slowest(sfu.0), unit: "ms",
                             baseline: "the AudioBridge room over WebRTC: \(slowest(webRTC.0).map { formatted($0, "ms") } ?? "not measured")", goal: "—", pass: nil, runs: 1,
                             method: method + " VideoRoom: \(joinFigures(sfu.0)) (publish, then a subscription per classmate: Janus offers, the kiosk answers)."),
                BenchmarkRow(measure: names.sfuCPU, value: sfu.cpu, unit: "%", baseline: "the AudioBridge room over WebRTC: \(formatted(webRTC.cpu, "%"))", goal: "—", pass: nil, runs: 1,
                             method: method + " Each kiosk runs two PeerConnections (its publisher and its classmate's subscription). A core is 100 %."),
            ]
        } catch {
            return unmeasured(error)
        }
    }
}
