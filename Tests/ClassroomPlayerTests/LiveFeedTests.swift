import Foundation
import Testing

@Suite("classroom-player: a live feed from another process", .serialized)
struct LiveFeedTests {
    @Test("Opus over RTP sent by gst-launch-1.0 to 127.0.0.1 is heard in the output WAV; when it stops, alarm 1025 is raised")
    func rtpFeed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0)
        let port = try Fixtures.freeUDPPort()
        let wav = folder.appendingPathComponent("mix.wav")
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "rtp://127.0.0.1:\(port)", "--output", "wav:\(wav.path)",
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        #expect(!Fixtures.events(events, named: "live-started").isEmpty)
        // 2 s of a 1 kHz tone at −17 dBFS RMS, 20 ms Opus packets, paced in real time.
        try Fixtures.gstLaunch("audiotestsrc is-live=true num-buffers=100 samplesperbuffer=960 wave=sine freq=1000 volume=0.2 "
                               + "! audio/x-raw,rate=48000,channels=1 ! opusenc ! rtpopuspay pt=96 ! udpsink host=127.0.0.1 port=\(port)")
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")

        let audio = try WAVFile(wav)
        let windows = stride(from: 0.0, to: audio.seconds - 0.05, by: 0.05).map { audio.rms(from: $0, to: $0 + 0.05) }
        let heard = Double(windows.filter { $0 > -20 }.count) * 0.05
        let loudest = stride(from: 0.0, to: audio.seconds - 0.5, by: 0.1).map { audio.rms(from: $0, to: $0 + 0.5) }.max() ?? -.infinity
        let stopped = Fixtures.events(events, named: "stopped").first
        print("FIGURE RTP feed: \(heard) s of the 2 s sent heard at > -20 dBFS, loudest 0.5 s \(loudest) dBFS, silent \(Double(windows.filter { $0 < -60 }.count) * 0.05) s; "
              + "pushed \(stopped?["live_seconds"] ?? "?") s, resyncs \(stopped?["live_resyncs"] ?? "?"), dropped pushes \(stopped?["live_dropped_pushes"] ?? "?"); "
              + "peer \(stopped?["peers"] ?? "?"); jitter buffer \(Fixtures.events(events, named: "live-jitter-buffer").compactMap { $0["ms"] })")
        #expect(heard >= 1.7)                                      // the feed, without dropouts
        #expect(abs(loudest - -17) < 1.0)                          // at its level (a mono feed goes to both channels)
        #expect(Double(windows.filter { $0 < -60 }.count) * 0.05 >= 3)   // and the silent lesson around it
        #expect(!Fixtures.events(events, named: "live-receiving").isEmpty)
        // How late its pushes reached the mix: counted for every push that continued the feed, within the mixer's wait and a block.
        let peer = (stopped?["peers"] as? [[String: Any]])?.first
        #expect((peer?["late_p99_ms"] as? Int).map { (1...50).contains($0) } == true, "\(peer ?? [:])")
        #expect((peer?["late_max_ms"] as? Double).map { $0 <= 50 } == true, "\(peer ?? [:])")
        let alarms = Fixtures.events(events, named: "alarm").filter { $0["number"] as? Int == 1025 }
        #expect(alarms.first?["owner"] as? String == "rtc-live-1", "\(Fixtures.events(events, named: "alarm"))")
    }

    @Test("a live feed on a device nobody played into drops nothing at the start: the class starts once the server plays the output",
          .enabled(if: ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1", "needs the private PulseAudio server of scripts/with-pulseaudio.sh"))
    func noStartUpDrops() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav"), feed = folder.appendingPathComponent("teacher.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 3, volume: 0)
        try Fixtures.toneLesson(at: feed, seconds: 2, frequency: 700)
        // The server's "speaker", which nothing plays into between tests, renders 2 s blocks and holds a
        // new stream until the block ends (WORKAROUNDS §17): this feed dropped 17–37 pushes before.
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=\(feed.path)", "--output", "speaker", "--mic", "none",
                                        "--events", events.path, "--no-stdin", "--no-mpris"], in: folder)
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        let stopped = try #require(Fixtures.events(events, named: "stopped").first, "stderr: \(player.stderr)")
        print("FIGURE live feed on an idle device: pushed \(stopped["live_seconds"] ?? "?") s, dropped \(stopped["live_dropped_pushes"] ?? "?") pushes")
        #expect(stopped["live_dropped_pushes"] as? Int == 0, "\(stopped)")
        #expect((stopped["live_seconds"] as? Double ?? 0) >= 1.9, "\(stopped)")
    }
}
