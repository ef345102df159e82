import ClassroomNetwork
import Foundation
import Testing

/// Rows of the reliability table for the player's own edges: the control protocol, signals, the
/// control socket and the output files. Each input → the expected answer or outcome → the class
/// still plays.
@Suite("classroom-player: the class goes on — protocol, signals, socket and files", .serialized)
struct ClassGoesOnTests {
    @Test("every control line is answered: duplicate keys, numbers out of range, empty and over-long lines, the last line without a newline")
    func protocolEdges() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 20, volume: 0.05)
        let lines = [
            #"{"at":1,"at":5,"do":"pause","do":"stop"}"#, "", #"{"do":"seek","position":1e309}"#, #"{"do":"seek","position":1e10}"#,
            #"{"do":"volume","channel":"media","value":-1e308}"#, String(repeating: "x", count: 70_000), #"{"do":"status","id":"alive"}"#,
            #"{"do":"pause"}"#, #"{"do":"stop","id":"last"}"#,
        ]
        // The last line has no newline: it must still be answered.
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--mic", "none"], in: folder, timeout: .seconds(30),
                                                 input: lines.joined(separator: "\n"))
        let answers = result.stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        print("FIGURE protocol edges: \(answers.map { ($0["error"] as? String) ?? "ok" })")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(answers.count == lines.count, "\(answers)")
        guard answers.count == lines.count else { return }
        #expect(answers[0]["error"] as? String == "bad-request" && (answers[0]["message"] as? String)?.contains("appears twice") == true)
        #expect(answers[1]["error"] as? String == "bad-request")
        #expect(answers[2]["error"] as? String == "bad-value" && (answers[2]["message"] as? String)?.contains("out of range") == true)
        #expect(answers[3]["error"] as? String == "bad-value")
        #expect(answers[4]["error"] as? String == "bad-value")
        #expect(answers[5]["error"] as? String == "bad-request" && (answers[5]["message"] as? String)?.contains("longer than") == true)
        #expect(answers[6]["id"] as? String == "alive" && answers[6]["ok"] as? Bool == true)
        #expect(answers[7]["ok"] as? Bool == true)
        #expect(answers[8]["id"] as? String == "last" && answers[8]["ok"] as? Bool == true)
    }

    @Test("timelines a user could write by mistake are refused before anything plays", arguments: [
        ("LATE", Int32(64), "\"at\" is seconds since play started, from 0 to 604800"),
        ("DIRECTORY", 1, "it is a directory"),
        ("NOTUTF8", 64, "it is not UTF-8 text"),
        ("DUPLICATE", 64, "the key \"do\" appears twice"),
    ])
    func badTimelines(kind: String, status: Int32, message: String) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1, volume: 0.05)
        let timeline = folder.appendingPathComponent("timeline.json")
        switch kind {
        case "LATE": try #"[{"at": 1e10, "do": "pause"}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        case "DIRECTORY": try FileManager.default.createDirectory(at: timeline, withIntermediateDirectories: true)
        case "NOTUTF8": try Data([0x5B, 0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x5D]).write(to: timeline)
        default: try #"[{"at": 1, "do": "pause", "do": "stop"}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        }
        let result = try await PlayerProcess.run(["play", lesson.path, "--script", timeline.path, "--output", "null", "--no-stdin"], in: folder)
        #expect(result.status == status, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test("a lesson that cannot play, or breaks mid-way, does not end the class while a live feed plays: the feed is heard to its end, the exit status says the lesson failed (2)",
          arguments: ["NOTMEDIA", "TRUNCATED"])
    func brokenLesson(kind: String) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("lesson.webm")
        if kind == "NOTMEDIA" {
            try Data("this is not a lesson".utf8).write(to: lesson)
        } else {
            // The sample lesson cut after about 4.7 of its 10 s.
            try Data(try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("lesson.webm"))).prefix(60_000)).write(to: lesson)
        }
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let result = try await PlayerProcess.run(["play", lesson.path, "--live", Fixtures.sample("live-feed.ogg"), "--until-live-ends", "--mic", "none",
                                                  "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder, timeout: .seconds(30))
        let failed = Fixtures.events(events, named: "lesson-failed")
        let stopped = Fixtures.events(events, named: "stopped").first
        let audio = try WAVFile(wav)
        print("FIGURE broken lesson (\(kind)): exit \(result.status), \(failed.count) lesson-failed at \(failed.first?["t"] ?? "-") s, live \(stopped?["live_seconds"] ?? "-") s, WAV \(audio.seconds) s")
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(failed.count == 1 && failed.first?["class_goes_on"] as? Bool == true, "\(failed)")
        #expect((stopped?["live_seconds"] as? Double ?? 0) > 7.4)          // the teacher's whole 7.6 s feed
        #expect(audio.headerMatchesFile && audio.seconds > 7.4)
        #expect(audio.rms(from: 6.0, to: 7.0) > -40)                        // still heard after the lesson broke
        #expect(stopped?["lesson_failed"] as? String != nil)
    }

    @Test("SIGHUP, and two SIGTERMs 2 ms apart, each stop cleanly with a finalised WAV (129, 143)", arguments: [(SIGHUP, 1, Int32(129)), (SIGTERM, 2, 143)])
    func signals(number: Int32, count: Int, status: Int32) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 20, volume: 0.1)
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--output", "wav:\(wav.path)", "--mic", "none", "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        try await Task.sleep(for: .seconds(1))
        for index in 0..<count {
            if index > 0 { usleep(2_000) }
            player.signal(number)
        }
        #expect(try await player.exitStatus(within: .seconds(10)) == status, "stderr: \(player.stderr)")
        let audio = try WAVFile(wav)
        print("FIGURE signal \(number) ×\(count): exit \(player.process.terminationStatus), WAV \(audio.seconds) s, finalised \(audio.headerMatchesFile)")
        #expect(audio.headerMatchesFile && audio.seconds > 0.8)
        #expect((try FileManager.default.contentsOfDirectory(atPath: folder.path)).allSatisfy { !$0.contains(".writing-") })
    }

    @Test("a run that cannot start leaves the WAV already at the path untouched and no temporary file behind")
    func goodRecordingKept() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2, volume: 0.1)
        let wav = folder.appendingPathComponent("mix.wav")
        try Fixtures.toneLesson(at: wav, seconds: 1, volume: 0.2)   // last class's recording
        let before = try Data(contentsOf: wav)
        let holder = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(holder) }
        let busy = try LocalPort.bind(holder, port: 0)
        let result = try await PlayerProcess.run(["play", lesson.path, "--live", "rtp://127.0.0.1:\(busy)", "--output", "wav:\(wav.path)", "--no-stdin"], in: folder)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(try Data(contentsOf: wav) == before)
        #expect((try FileManager.default.contentsOfDirectory(atPath: folder.path)).allSatisfy { !$0.contains(".writing-") })
    }

    @Test("a socket file is removed only by the player that created it")
    func socketOwnership() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 30, volume: 0.05)
        let path = folder.appendingPathComponent("control.sock").path
        let first = try PlayerProcess(["play", lesson.path, "--output", "null", "--mic", "none", "--control", path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { (try? ControlClient(path: path)) != nil }, "stderr: \(first.stderr)")
        // Someone removes it and a second player takes the path.
        unlink(path)
        let second = try PlayerProcess(["play", lesson.path, "--output", "null", "--mic", "none", "--control", path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { (try? ControlClient(path: path).ask(#"{"do":"status"}"#))?["ok"] as? Bool == true }, "stderr: \(second.stderr)")
        first.signal(SIGTERM)
        #expect(try await first.exitStatus(within: .seconds(10)) == 143)
        let answer = try ControlClient(path: path).ask(#"{"do":"stop"}"#)
        #expect(answer["ok"] as? Bool == true, "the second player's socket survived the first one's exit")
        #expect(try await second.exitStatus(within: .seconds(10)) == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("out of file descriptors the control socket waits and comes back: idle clients fill the limit, are closed, and a new client is answered")
    func descriptorExhaustion() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 30, volume: 0.05)
        let path = folder.appendingPathComponent("control.sock").path, events = folder.appendingPathComponent("events.jsonl")
        // A descriptor limit systemd could set: the player's own use plus a few clients.
        let player = try PlayerProcess(["bash", "-c", "ulimit -n 48 && exec \"$0\" \"$@\"", PlayerProcess.executable.path, "play", lesson.path,
                                        "--output", "null", "--mic", "none", "--control", path, "--events", events.path, "--no-stdin"],
                                       in: folder, executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(await waitUntil(timeout: .seconds(15)) { (try? ControlClient(path: path)) != nil }, "stderr: \(player.stderr)")
        var idle: [ControlClient] = []
        for _ in 0..<40 { if let client = try? ControlClient(path: path) { idle.append(client) } }
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(events, named: "control-socket").isEmpty }, "no trouble said: \(player.stderr)")
        idle.removeAll()
        var answered = false
        _ = await waitUntil(timeout: .seconds(5)) {
            answered = (try? ControlClient(path: path).ask(#"{"do":"status"}"#))?["ok"] as? Bool == true
            return answered
        }
        print("FIGURE EMFILE: \(Fixtures.events(events, named: "control-socket").map { $0["message"] ?? "" })")
        #expect(answered)
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(10)) == 143)
    }

    @Test("lessons: a bilingual lesson's track is chosen by language, as ISO 639-1 or 639-2 (zh, zho), and switched while playing, probe lists the tracks and their codes; rate by timeline; a video-only lesson plays its length; --video none reports the real position")
    func lessons() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bilingual = folder.appendingPathComponent("bilingual.mkv"), videoOnly = folder.appendingPathComponent("video-only.webm")
        try Fixtures.gstLaunch("-e matroskamux name=m ! filesink location=\(bilingual.path) "
                               + "audiotestsrc num-buffers=469 freq=440 volume=0.2 ! audio/x-raw,rate=48000,channels=2 ! taginject tags=language-code=en ! opusenc ! m. "
                               + "audiotestsrc num-buffers=469 freq=880 volume=0.2 ! audio/x-raw,rate=48000,channels=2 ! taginject tags=language-code=zho ! opusenc ! m.")
        try Fixtures.gstLaunch("-e videotestsrc num-buffers=90 ! video/x-raw,width=160,height=120,framerate=30/1 ! vp8enc ! webmmux ! filesink location=\(videoOnly.path)")

        let probe = try await PlayerProcess.run(["probe", bilingual.path], in: folder)
        #expect(probe.stdout.contains("audio track 0 (--audio-track 0 or en, eng)") && probe.stdout.contains("audio track 1 (--audio-track 1 or zh, zho, chi)"), "\(probe.stdout)")
        let json = try await PlayerProcess.run(["probe", bilingual.path, "--json"], in: folder)
        #expect(json.stdout.contains(#""languages":["zh","zho","chi"]"#), "\(json.stdout)")

        // Chinese first (as ffprobe names it, zho; the file's tag is zh), English (eng) from 3 s, then 1.25× from 5 s: 3 + 2 + 5/1.25 = 9 s.
        let timeline = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 3, "do": "track", "audio": "eng"}, {"at": 5, "do": "rate", "value": 1.25}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let played = try await PlayerProcess.run(["play", bilingual.path, "--audio-track", "zho", "--script", timeline.path, "--mic", "none",
                                                  "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder, timeout: .seconds(30))
        #expect(played.status == 0, "stderr: \(played.stderr)")
        func level(_ hz: Int, _ from: Double, _ to: Double) throws -> Double { try Fixtures.bandLevel(wav, from: from, to: to, band: (hz - 40)...(hz + 40)) }
        let chinese = (try level(880, 0.5, 2.8), try level(440, 0.5, 2.8)), english = (try level(440, 3.4, 4.8), try level(880, 3.4, 4.8))
        let ended = Fixtures.events(events, named: "lesson-ended").first?["t"] as? Double ?? 0
        print("FIGURE bilingual: zho \(chinese.0) dB (en \(chinese.1)), then eng \(english.0) dB (zh \(english.1)); ended at \(ended) s (9 expected at 1.25× from 5 s)")
        #expect(chinese.0 > -40 && chinese.1 < chinese.0 - 25)
        #expect(english.0 > -40 && english.1 < english.0 - 25)
        #expect(abs(ended - 9.0) < 0.5)
        let bad = try await PlayerProcess.run(["play", bilingual.path, "--audio-track", "de", "--output", "null", "--no-stdin"], in: folder)
        #expect(bad.status == 1 && bad.stderr.contains("no audio track has the language 'de'; the tracks are 0 (en, eng), 1 (zh, zho, chi)"), "\(bad.stderr)")

        // Video-only, not shown: it plays its 3 s, silent; the position follows the clock.
        let videoEvents = folder.appendingPathComponent("video.jsonl")
        let silent = try PlayerProcess(["play", videoOnly.path, "--video", "none", "--output", "null", "--mic", "none", "--events", videoEvents.path], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(videoEvents, named: "started").isEmpty })
        try await Task.sleep(for: .seconds(1))
        silent.stdin.fileHandleForWriting.write(Data("{\"do\":\"status\"}\n".utf8))
        _ = await waitUntil(timeout: .seconds(3)) { silent.stdout.contains("\"position\"") }
        let status = silent.stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }.first { $0["lesson"] != nil }
        let position = (status?["lesson"] as? [String: Any])?["position"] as? Double ?? -1
        _ = try await silent.exitStatus(within: .seconds(10))
        let videoEnded = Fixtures.events(videoEvents, named: "lesson-ended").first?["t"] as? Double ?? 0
        print("FIGURE video-only: position \(position) s about 1 s in, ended at \(videoEnded) s of 3")
        #expect(position > 0.5 && position < 2.0)
        #expect(videoEnded > 2.7 && videoEnded < 4.0)
    }
}
