import ClassroomEngine
import ClassroomMeasurement
import ClassroomNetwork
import Foundation
import GStreamer
import Logging
import Synchronization

/// RTP peers' jitter buffers on an impaired path (#21 item 3): an in-process Opus sender (20 ms
/// packets of a tone, paced in real time) → a relay on loopback (python3) that holds each packet a
/// random 0…J ms (packets overtake each other) and drops L % → two PeerFeeds on one headless engine
/// that get the same packets: the adaptive jitter buffer and a fixed 60 ms one (the buffer before).
enum ImpairedPathRows {
    static let jitters = [0, 20, 50]
    static let losses = [0.0, 2.0, 5.0]
    /// Measured after this much of each run (the adaptive buffer settles from its 20 ms start: the steady state is measured), and for this long.
    static let warmUp = 6.0, measured = 8.0

    private static let relay = #"""
    import heapq, random, select, socket, sys, time
    listen, jitter_ms, loss, outs = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), [int(p) for p in sys.argv[4:]]
    inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); inbound.bind(("127.0.0.1", listen))
    outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    random.seed(11)
    held, last, order = [], time.monotonic() + 10, 0    # 10 s for the first packet, then 1.5 s after the last
    while time.monotonic() - last < 1.5 or held:
        now = time.monotonic()
        while held and held[0][0] <= now:
            data = heapq.heappop(held)[2]
            for port in outs: outbound.sendto(data, ("127.0.0.1", port))
        if select.select([inbound], [], [], max(0.0, min(0.05, (held[0][0] - now) if held else 0.05)))[0]:
            data, _ = inbound.recvfrom(2048)
            last = time.monotonic(); order += 1
            if random.random() * 100 >= loss: heapq.heappush(held, (last + random.uniform(0, jitter_ms / 1000), order, data))
    """#

    /// One receiver's figures: its jitter buffer's delay averaged over the run, and the share of
    /// packets it had to conceal (declared lost: dropped on the way or later than the buffer held).
    struct Figures { let delay: Double; let concealed: Double }

    static func rows(logger: Logger) async -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        let method = """
            One UplinkSender (Opus, 20 ms packets, FEC on) fed a 1 kHz tone in 10 ms frames by a real-time feeder → a python3 relay on \
            127.0.0.1 holding each packet a uniformly random 0…J ms (so packets overtake each other) and dropping L % (seeded) → the same \
            packets to two PeerFeeds on one headless engine: the adaptive jitter buffer, and one fixed at 60 ms (--jitter-buffer 60, the \
            buffer before). After \(Int(warmUp)) s, \(Int(measured)) s measured: the buffer's delay sampled every 100 ms and averaged (the \
            latency it adds), and rtpjitterbuffer's own counts: lost / (pushed + lost) is the audio concealed (rebuilt from the next packet's \
            in-band FEC, else Opus PLC) — packets dropped \
            on the way and those later than the buffer held.
            """
        for jitter in jitters {
            for loss in losses {
                let name = "\(jitter) ms jitter, \(loss == loss.rounded() ? "\(Int(loss))" : "\(loss)") % loss"
                do {
                    let (adaptive, fixed) = try await measure(jitter: jitter, loss: loss, logger: logger)
                    rows.append(BenchmarkRow(measure: "Jitter buffer on an impaired path (\(name)): latency it adds", value: adaptive.delay, unit: "ms",
                                             baseline: "fixed 60 ms: \(formatted(fixed.delay, "ms"))", goal: "—", pass: nil, runs: 1, method: method))
                    rows.append(BenchmarkRow(measure: "Jitter buffer on an impaired path (\(name)): audio concealed", value: adaptive.concealed, unit: "%",
                                             baseline: "fixed 60 ms: \(String(format: "%.2f", fixed.concealed)) %", goal: "—", pass: nil, runs: 1, method: method))
                } catch {
                    rows.append(.notMeasured("Jitter buffer on an impaired path (\(name))", unit: "ms", baseline: "fixed 60 ms", goal: "—", method: method, error: error))
                }
            }
        }
        return rows
    }

    static func measure(jitter: Int, loss: Double, logger: Logger) async throws -> (adaptive: Figures, fixed: Figures) {
        let engine = try AudioEngine(output: .discard, logger: logger)
        try engine.start()
        defer { engine.stop() }
        let (relayPort, adaptivePort, fixedPort) = (try LocalPort.free(.udp), try LocalPort.free(.udp), try LocalPort.free(.udp))
        var feeds: [PeerFeed] = []
        defer { for feed in feeds { feed.stop() } }
        for (name, port, setting) in [("adaptive", adaptivePort, JitterBufferSetting.adaptive), ("fixed", fixedPort, .fixed(.milliseconds(60)))] {
            let input = try engine.addRTCInput(id: "rtc-\(name)", format: PeerFeed.format)
            let feed = try PeerFeed(source: .rtp(address: "127.0.0.1", port: port, payloadType: nil), input: input, jitterBuffer: setting, logger: logger)
            try feed.start { _ in }
            feeds.append(feed)
        }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-relay-\(UUID().uuidString).py")
        try relay.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, "\(relayPort)", "\(jitter)", "\(loss)", "\(adaptivePort)", "\(fixedPort)"]
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let sender = try UplinkSender(destinations: [.rtp(try RTPEndpoint(host: "127.0.0.1", port: relayPort))], logger: logger)
        try sender.start()
        defer { sender.stop() }
        let tone = (0..<480).map { Int16(6_000 * sin(2 * Double.pi * 1_000 * Double($0) / 48_000)) }
        let total = Int((warmUp + measured) * 100)
        let delays = Mutex<[[Double]]>([[], []])
        let before = Mutex<[(pushed: Int, lost: Int)]>([])
        let feedsCopy = feeds
        let feeder = RealTimeFeeder(count: total) { tick in
            sender.send(UplinkFrame(samples: tone, timestamp: nil))
            if tick == Int(warmUp * 100) { before.withLock { $0 = feedsCopy.map { $0.jitterBufferCounts ?? (0, 0) } } }
            if tick > Int(warmUp * 100), tick % 10 == 0 {
                delays.withLock { lists in for (index, feed) in feedsCopy.enumerated() { lists[index].append(Double(feed.jitterBufferDelay?.milliseconds ?? 0)) } }
            }
        }
        feeder.join()
        try await Task.sleep(for: .milliseconds(300))
        let start = before.withLock { $0 }
        let measuredFeeds = feeds.enumerated().map { index, feed -> (figures: Figures, passed: Int) in
            let end: (pushed: Int, lost: Int) = feed.jitterBufferCounts ?? (0, 0)
            let first: (pushed: Int, lost: Int) = start.indices.contains(index) ? start[index] : (0, 0)
            let (pushed, lost) = (end.pushed - first.pushed, end.lost - first.lost)
            let samples = delays.withLock { $0[index] }
            return (Figures(delay: samples.isEmpty ? 0 : samples.reduce(0, +) / Double(samples.count),
                            concealed: pushed + lost > 0 ? 100 * Double(lost) / Double(pushed + lost) : 0), pushed)
        }
        let counts = measuredFeeds.map(\.passed), figures = measuredFeeds.map(\.figures)
        guard counts.count == 2, counts.allSatisfy({ $0 > 0 }) else {
            throw BenchError("the receivers passed \(counts) packets in the \(Int(measured)) s measured; the relay (python3 on 127.0.0.1:\(relayPort)) forwarded nothing")
        }
        FileHandle.standardError.write(Data("classroom-bench: impaired path \(jitter) ms, \(loss) %: adaptive \(figures[0]), fixed \(figures[1])\n".utf8))
        return (figures[0], figures[1])
    }
}
