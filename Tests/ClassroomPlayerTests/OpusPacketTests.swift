import Foundation
import Testing

@Suite("classroom-player: RTP packet loss", .serialized)
struct OpusPacketTests {
    /// Ten-millisecond windows of `wav` between the feed's first and last sound: how many are
    /// silent (below -60 dBFS, a hole), the median level and the lowest.
    private func holes(in wav: URL) throws -> (silent: Int, windows: Int, median: Double, lowest: Double) {
        let audio = try WAVFile(wav)
        let levels = stride(from: 0.0, to: audio.seconds - 0.01, by: 0.01).map { audio.rms(from: $0, to: $0 + 0.01) }
        guard let first = levels.firstIndex(where: { $0 > -30 }), let last = levels.lastIndex(where: { $0 > -30 }), last - first > 20 else { return (0, 0, -.infinity, -.infinity) }
        let body = Array(levels[(first + 5)...(last - 5)])
        return (body.filter { $0 < -60 }.count, body.count, body.sorted()[body.count / 2], body.min() ?? -.infinity)
    }

    @Test("with every 10th packet lost on the way, an Opus feed has no silent holes: FEC rebuilds the lost packets, or PLC conceals them")
    func lossConcealed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0)
        var runs: [(name: String, player: PlayerProcess, relay: LossyRelay, wav: URL, events: URL, port: Int)] = []
        for name in ["fec", "plain"] {
            let (port, feed) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
            let wav = folder.appendingPathComponent("mix-\(name).wav"), events = folder.appendingPathComponent("events-\(name).jsonl")
            let relay = try LossyRelay(listen: port, forward: feed, dropEvery: 10, seconds: 20, in: folder)
            let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(feed)", "--mic", "none", "--output", "wav:\(wav.path)",
                                            "--events", events.path, "--no-stdin"], in: folder)
            runs.append((name, player, relay, wav, events, port))
        }
        defer { for run in runs { Fixtures.stop(run.relay.process) } }
        for run in runs {
            #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(run.events, named: "started").isEmpty }, "stderr: \(run.player.stderr)")
        }
        // 3 s of a 440 Hz tone at -13.5 dBFS in 20 ms Opus packets, paced in real time, with and without in-band FEC.
        let senders = try runs.map { run in
            try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "audiotestsrc", "is-live=true", "num-buffers=150", "samplesperbuffer=960", "freq=440", "volume=0.3", "!",
                                                           "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "audio-type=voice"]
                                                          + (run.name == "fec" ? ["inband-fec=true", "packet-loss-percentage=10"] : [])
                                                          + ["!", "rtpopuspay", "pt=96", "!", "udpsink", "host=127.0.0.1", "port=\(run.port)"])
        }
        defer { for sender in senders { Fixtures.stop(sender) } }
        for run in runs {
            #expect(try await run.player.exitStatus(within: .seconds(30)) == 0, "stderr: \(run.player.stderr)")
            let (packets, _) = try await run.relay.packets(within: .seconds(5))
            let lost = packets.filter(\.dropped).count
            let found = try holes(in: run.wav)
            print("FIGURE \(run.name) sender, \(lost) of \(packets.count) packets lost: \(found.silent) of \(found.windows) 10 ms windows silent (< -60 dBFS); "
                  + "median \(String(format: "%.1f", found.median)) dBFS, lowest \(String(format: "%.1f", found.lowest)) dBFS")
            #expect(lost >= 10, "\(run.name)")
            #expect(found.windows >= 200, "\(run.name): the tone was not heard for 2 s")
            #expect(found.silent == 0, "\(run.name): \(found.silent) silent 10 ms windows where packets were lost")
        }
    }
}
