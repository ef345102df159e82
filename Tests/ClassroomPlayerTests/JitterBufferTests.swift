import Foundation
import Testing

/// The RTP peers' jitter buffer follows the measured arrival jitter, or holds what --jitter-buffer says.
@Suite("classroom-player: adaptive jitter buffer")
struct JitterBufferTests {
    @Test("under 40 ms of arrival jitter a peer's jitter buffer grows past 40 ms; once the network is calm it comes back down; --jitter-buffer 60 holds 60 ms throughout")
    func followsTheJitter() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 25, volume: 0)
        var runs: [(name: String, wav: URL, events: URL, player: PlayerProcess, relay: JitterRelay, sender: Process)] = []
        defer { for run in runs { Fixtures.stop(run.sender); Fixtures.stop(run.relay.process) } }
        for (name, option) in [("adaptive", [String]()), ("fixed", ["--jitter-buffer", "60"])] {
            let (relayPort, feedPort) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
            let wav = folder.appendingPathComponent("\(name).wav"), events = folder.appendingPathComponent("\(name).jsonl")
            let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(feedPort)", "--mic", "none",
                                            "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"] + option, in: folder)
            #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
            let relay = try JitterRelay(listen: relayPort, forward: feedPort, jitter: 40, jitterySeconds: 6, in: folder)
            // 22 s of a 1 kHz tone: 6 jittery, then 16 calm (the 5 s window forgets the jitter, then 10 ms steps 3 s apart).
            let sender = try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "audiotestsrc", "is-live=true", "num-buffers=1100", "samplesperbuffer=960", "freq=1000",
                                                                         "volume=0.2", "!", "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "!", "rtpopuspay", "pt=96",
                                                                         "!", "udpsink", "host=127.0.0.1", "port=\(relayPort)"])
            runs.append((name, wav, events, player, relay, sender))
        }
        for run in runs {
            #expect(try await run.player.exitStatus(within: .seconds(60)) == 0, "\(run.name) stderr: \(run.player.stderr)")
            let moves = Fixtures.events(run.events, named: "live-jitter-buffer").compactMap { $0["ms"] as? Double }
            let stopped = Fixtures.events(run.events, named: "stopped").first
            let peer = (stopped?["peers"] as? [[String: Any]])?.first ?? [:]
            let held = peer["jitter_buffer_ms"] as? Double
            let calmLevel = try Fixtures.bandLevel(run.wav, from: 10, to: 20, band: 940...1060)
            print("FIGURE jitter buffer \(run.name): moved to \(moves.map { Int($0) }) ms, \(held.map { "\(Int($0))" } ?? "-") ms at the end, "
                  + "the tone at \(String(format: "%.1f", calmLevel)) dB while calm, \(peer["resyncs"] ?? "-") resyncs")
            #expect(calmLevel > -30, "\(run.name): the teacher was not heard")
            if run.name == "adaptive" {
                #expect((moves.max() ?? 0) >= 40, "\(moves)")          // 40 ms of jitter: it grew from its 20 ms start past 40
                // Calm again: at least 15 ms back down (20 ms, one packet, on a quiet machine; the
                // receiving threads' own scheduling on a loaded one is jitter too).
                #expect((held ?? 1_000) <= (moves.max() ?? 0) - 15, "\(moves)")
            } else {
                #expect(moves.isEmpty, "\(moves)")
                #expect(held == 60)
            }
        }
    }
}
