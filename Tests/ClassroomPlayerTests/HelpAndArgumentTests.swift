import ClassroomNetwork
import Foundation
import Testing

@Suite("classroom-player: help, bad arguments and probe", .serialized)
struct HelpAndArgumentTests {
    @Test("--help lists the subcommands and exit statuses; play --help documents every option, verb, error code and exit status")
    func help() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try await PlayerProcess.run(["--help"], in: folder)
        #expect(root.status == 0)
        for word in ["play (default)", "devices", "probe", "143"] { #expect(root.stdout.contains(word), "root help lacks \(word)") }
        let play = try await PlayerProcess.run(["play", "--help"], in: folder)
        #expect(play.status == 0)
        let text = play.stdout
        for option in ["--live", "--until-live-ends", "--mic", "--output", "--fallback-wav", "--video", "--snapshot-interval",
                       "--script", "--control", "--events", "--no-stdin", "--log-level", "rtp://HOST:PORT", "snapshots:DIR", "wav:PATH"] {
            #expect(text.contains(option), "play --help lacks \(option)")
        }
        for verb in ["\"do\":\"mic\"", "\"do\":\"duck\"", "\"do\":\"volume\"", "\"do\":\"pause\"", "\"do\":\"resume\"", "\"do\":\"seek\"",
                     "\"do\":\"route\"", "\"do\":\"lease\"", "\"do\":\"release\"", "\"do\":\"stop\"", "\"do\":\"status\""] {
            #expect(text.contains(verb), "play --help lacks \(verb)")
        }
        for code in ["bad-request", "unknown-verb", "unknown-field", "missing-field", "bad-value", "unavailable", "session-refused", "failed"] {
            #expect(text.contains(code), "play --help lacks the error code \(code)")
        }
        for status in ["0 ", "1 ", "2 ", "3 ", "64", "130", "143"] { #expect(text.contains("\n  \(status)"), "play --help lacks exit status \(status)") }
    }

    @Test("--version prints the release that CHANGELOG.md's latest release names (not its Unreleased section), and the GStreamer it runs on")
    func version() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await PlayerProcess.run(["--version"], in: folder)
        let changelog = try String(contentsOf: Fixtures.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let latest = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }.map { String($0.dropFirst(4).prefix { $0 != "]" }) }
        print("FIGURE classroom-player --version: \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)); CHANGELOG's latest \(latest ?? "-")")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(latest != nil && result.stdout.hasPrefix("\(latest ?? "") (GStreamer 1."), "\(result.stdout)")
    }

    /// One --live more than a class takes.
    static let seventeenPeers: [String] = ["play", "LESSON"] + (1...17).flatMap { _ in ["--live", "LESSON"] }

    @Test("bad arguments exit 64 or 1 with a message that names the problem", arguments: [
        (["play"], Int32(64), "Missing expected argument"),
        (["play", "LESSON", "--output", "wav:"], 64, "wav: needs a path"),
        (["play", "LESSON", "--video", "window"], 64, "use auto, none or snapshots:DIR"),
        (["play", "LESSON", "--until-live-ends"], 64, "--until-live-ends needs --live"),
        (["play", "LESSON", "--bogus"], 64, "Unknown option '--bogus'"),
        (["play", "/nonexistent/lesson.webm"], 1, "The lesson '/nonexistent/lesson.webm' cannot be read: no such file"),
        (["play", "LESSON", "--live", "/nonexistent/feed.ogg"], 1, "The live feed '/nonexistent/feed.ogg' cannot be read"),
        (["play", "LESSON", "--live", "rtp://127.0.0.1"], 1, "an RTP feed is rtp://HOST:PORT"),
        (["play", "LESSON", "--script", "/nonexistent/timeline.json"], 1, "The timeline '/nonexistent/timeline.json' cannot be read"),
        (["play", "LESSON", "--script", "BADSCRIPT"], 64, "step 2: \"duck\" takes \"on\", \"owner\"; \"volume\" is not one of them"),
        (["play", "LESSON", "--script", "NOTJSON"], 64, "not valid JSON"),
        (["play", "LESSON", "--live", "NOTSDP"], 1, "it is not SDP"),
        (["play", "LESSON", "--live", "VIDEOSDP"], 1, "it describes no audio (only video)"),
        (["play", "LESSON", "--live", "t=LESSON", "--live", "t=LESSON"], 1, "the peer id 't' is given twice"),
        (["play", "LESSON", "--live", "rtp://127.0.0.1:BUSYPORT"], 1, "is another program listening on it?"),
        (["play", "LESSON", "--live", "rtp://127.0.0.1:5004?pt=0"], 1, "pt is the dynamic payload type"),
        (["play", "LESSON", "--uplink", "wav:/proc/no-such-folder/up.wav"], 1, "Cannot create the uplink WAV file"),
        (["play", "LESSON", "--uplink", "rtp://no-such-host.invalid:5004"], 1, "does not resolve"),
        (["play", "LESSON", "--uplink", "rtp://127.0.0.1:5004?pt=3"], 1, "Opus has no static payload type"),
        (["play", "LESSON", "--uplink", "tcp://127.0.0.1:5004"], 1, "use wav:PATH, rtp://"),
        (["play", "LESSON", "--uplink-sdp", "up.sdp"], 64, "--uplink-sdp needs an RTP uplink"),
        (HelpAndArgumentTests.seventeenPeers, 64, "--live is given 17 times; a class takes at most 16 peers at once"),
    ])
    func badArguments(arguments: [String], status: Int32, message: String) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("lesson.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let bad = folder.appendingPathComponent("bad.json")
        try #"[{"at": 1, "do": "mic", "on": true}, {"at": 2, "do": "duck", "on": true, "volume": 0.5}]"#.write(to: bad, atomically: true, encoding: .utf8)
        let notJSON = folder.appendingPathComponent("not.json")
        try "[{\"at\": 1, \"do\": ".write(to: notJSON, atomically: true, encoding: .utf8)
        let notSDP = folder.appendingPathComponent("not.sdp"), videoSDP = folder.appendingPathComponent("video.sdp")
        try "hello".write(to: notSDP, atomically: true, encoding: .utf8)
        try "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=-\nc=IN IP4 127.0.0.1\nt=0 0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 VP8/90000\n".write(to: videoSDP, atomically: true, encoding: .utf8)
        // A port another program holds (no SO_REUSEADDR): a feed on it must be refused, not shared.
        let holder = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(holder) }
        let busy = try LocalPort.bind(holder, port: 0)
        let placeholders = ["LESSON": lesson.path, "BADSCRIPT": bad.path, "NOTJSON": notJSON.path, "NOTSDP": notSDP.path, "VIDEOSDP": videoSDP.path, "BUSYPORT": "\(busy)"]
        let resolved = arguments.map { argument in
            placeholders.reduce(argument) { text, entry in text.replacingOccurrences(of: entry.key, with: entry.value) }
        } + ["--output", "null"]
        let result = try await PlayerProcess.run(resolved, in: folder)
        #expect(result.status == status, "\(arguments): stderr \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): stderr was \(result.stderr)")
    }

    @Test("probe: the sample lesson's duration, codecs and verdict; a corrupt file cannot play (exit 2)")
    func probe() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try await PlayerProcess.run(["probe", "--json", Fixtures.sample("lesson.webm")], in: folder)
        #expect(good.status == 0, "stderr: \(good.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(good.stdout.utf8)) as? [String: Any])
        let duration = try #require(report["duration"] as? Double)
        #expect(abs(duration - 10) < 0.1)
        #expect(report["can_play"] as? Bool == true)
        let streams = try #require(report["streams"] as? [[String: Any]])
        let encoded = streams.compactMap { $0["encoded"] as? String }
        #expect(encoded.contains { $0.hasPrefix("audio/x-opus") })
        #expect(encoded.contains { $0.hasPrefix("video/x-vp8") })
        #expect(streams.allSatisfy { ($0["decoded"] as? String)?.contains("/x-raw") == true })

        let garbage = folder.appendingPathComponent("garbage.webm")
        try Data(repeating: 0x42, count: 4096).write(to: garbage)
        let bad = try await PlayerProcess.run(["probe", garbage.path], in: folder)
        #expect(bad.status == 2)
        #expect(bad.stdout.contains("Verdict:  cannot play"), "stdout: \(bad.stdout)")
    }

    @Test("a lesson the kiosk user may not read: exit 1 and a message that says so, for play and probe")
    func unreadableLesson() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let locked = folder.appendingPathComponent("locked.webm")
        try FileManager.default.copyItem(atPath: Fixtures.sample("lesson.webm"), toPath: locked.path)
        chmod(locked.path, 0o000)
        chmod(folder.path, 0o755)
        for command in [["probe", locked.path], ["play", locked.path, "--output", "null", "--mic", "none", "--no-stdin"]] {
            // Root reads everything: the player runs as nobody then, as a kiosk service user would.
            let process = Process()
            let asUser = geteuid() == 0 ? ["--reuid=65534", "--regid=65534", "--clear-groups", PlayerProcess.executable.path] : []
            process.executableURL = URL(fileURLWithPath: geteuid() == 0 ? "/usr/bin/setpriv" : PlayerProcess.executable.path)
            process.arguments = asUser + command
            process.currentDirectoryURL = folder
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            print("ROW lesson without read permission (\(command[0])) → exit \(process.terminationStatus): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
            #expect(process.terminationStatus == 1, "\(message)")
            #expect(message.contains("permission denied"))
        }
    }
}
