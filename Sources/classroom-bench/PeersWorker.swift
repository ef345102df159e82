import ArgumentParser
import ClassroomNetwork
import ClassroomMeasurement
import Foundation
import GStreamer

/// N RTP peers received, decoded and mixed in real time: one Opus stream (a 500 Hz sine, 20 ms
/// packets) sent by an in-process gst pipeline to N ports, and a `PeerFeed` per port pushing
/// into its own RTC input of a headless engine — what a kiosk in a 32-pupil class does.
struct PeersWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "peers", abstract: "N RTP peers decoded and mixed in real time.")

    struct Outcome: Codable {
        var cpuSeconds: Double
        var wallSeconds: Double
        /// Audio each peer pushed in the measured window, as a fraction of the window (the least of them).
        var slowestPeerRatio: Double
        var droppedPushes: Int
        var resyncs: Int
        var refusedPushes: Int
    }

    @Option(help: "How many peers.")
    var peers: Int

    @Option(help: "Seconds to measure (after 2 s of warm-up).")
    var seconds: Double = 8

    func run() async throws {
        let engine = try WorkerSetup.headlessEngine("peers")
        defer { engine.stop() }
        let logger = WorkerSetup.logger("peers")
        let ports = try (0..<peers).map { _ in try LocalPort.free(.udp) }
        var feeds: [PeerFeed] = []
        for (index, port) in ports.enumerated() {
            let input = try engine.addRTCInput(id: "rtc-peer-\(index)", format: PeerFeed.format)
            let feed = try PeerFeed(source: .rtp(address: "127.0.0.1", port: port, payloadType: nil), input: input, logger: logger)
            try feed.start { _ in }
            feeds.append(feed)
        }
        defer { for feed in feeds { feed.stop() } }
        // One encoder, N destinations: the sender's cost stays out of the receiver's figure as far as one process allows.
        let branches = ports.map { "t. ! queue ! udpsink host=127.0.0.1 port=\($0) sync=false async=false" }.joined(separator: " ")
        let sender = try Pipeline.parse("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 ! audio/x-raw,rate=48000,channels=1 "
                                        + "! opusenc ! rtpopuspay pt=111 ! tee name=t \(branches)")
        try sender.setState(.playing)
        defer { _ = try? sender.setState(.null) }
        try await Task.sleep(for: .seconds(2))
        let pushedBefore = feeds.map(\.secondsPushed)
        let cpuBefore = ProcessMeters.cpuSeconds()
        let wallBefore = ProcessMeters.monotonicNanoseconds()
        try await Task.sleep(for: .seconds(seconds))
        let wall = Double(ProcessMeters.monotonicNanoseconds() - wallBefore) / 1e9
        let ratios = zip(feeds, pushedBefore).map { ($0.secondsPushed - $1) / wall }
        let outcome = Outcome(cpuSeconds: ProcessMeters.cpuSeconds() - cpuBefore, wallSeconds: wall, slowestPeerRatio: ratios.min() ?? 0,
                              droppedPushes: feeds.reduce(0) { $0 + $1.input.droppedPushes },
                              resyncs: feeds.reduce(0) { $0 + $1.input.timelineResyncs },
                              refusedPushes: feeds.reduce(0) { $0 + $1.refusedPushes })
        print(String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self))
    }
}

/// 32 RTP peers in real time, in a worker of its own (its CPU is its own).
enum RealTimePeers {
    static let goal = "keeps real time: every peer ≥ 99 % of the window pushed, no dropped pushes"

    static func rows(executable: String, peers: Int, runs: Int) async -> [BenchmarkRow] {
        let measure = "RTP peers (Opus) received, decoded and mixed in real time: \(peers)"
        let method = """
            `classroom-bench worker peers --peers \(peers) --seconds 8`: \(peers) PeerFeeds (udpsrc ► rtpptdemux ► rtpjitterbuffer ► \
            rtpopusdepay ► opusdec ► appsink in real time ► RTC input) on a headless engine, fed by one in-process Opus sender teed \
            to \(peers) loopback ports. After 2 s of warm-up, 8 s measured: the audio each peer pushed over the wall time (the \
            slowest peer is the figure), dropped and re-anchored pushes, and the worker's CPU (both cores available; it includes the \
            one Opus encoder). Median of the runs.
            """
        do {
            var ratios: [Double] = [], details: [String] = []
            var keptUp = true
            for _ in 0..<runs {
                let command = ["worker", "peers", "--peers", "\(peers)", "--seconds", "8"]
                let outcome = try await ChildProcess.run(executable, command)
                let result = try ChildProcess.decode(PeersWorker.Outcome.self, from: outcome, command: "classroom-bench " + command.joined(separator: " "))
                ratios.append(result.slowestPeerRatio)
                keptUp = keptUp && result.slowestPeerRatio >= 0.99 && result.droppedPushes == 0
                details.append("slowest peer \(formatted(100 * result.slowestPeerRatio, "%")) of real time, \(result.droppedPushes) dropped, "
                               + "\(result.resyncs) re-anchored, \(result.refusedPushes) refused pushes, CPU \(formatted(100 * result.cpuSeconds / result.wallSeconds, "%")) of one core")
            }
            return [BenchmarkRow(measure: measure, value: 100 * ratios.median, unit: "% of real time (slowest peer)", baseline: "—", goal: goal,
                                 pass: keptUp, runs: runs, method: method + " Runs: " + details.joined(separator: "; ") + ".")]
        } catch {
            return [.notMeasured(measure, unit: "% of real time (slowest peer)", baseline: "—", goal: goal, method: method, error: error)]
        }
    }
}
