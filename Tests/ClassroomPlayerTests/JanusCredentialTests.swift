import Foundation
import Testing

/// The room's credentials against a real private Janus with token_auth, an API secret and a room
/// pin: they come from files only their owner can read, a refused one is named, and none of them
/// appears in anything the kiosk writes.
@Suite("classroom-player: a Janus room's token, API secret and pin come from files and are never shown", .serialized,
       .enabled(if: JanusServer.available, "no Janus to run here: scripts/janus-server.sh --check says why"))
struct JanusCredentialTests {
    /// The server's secrets; distinctive, so that finding one in the kiosk's output cannot be chance.
    static let tokenSecret = "tsec-4q8WzR", apiSecret = "asec-9mK2vX", pin = "rpin-7Hc3Lb"

    /// What a case gives the kiosk.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// token, apisecret, pin: "right", "wrong", "open" (right, but mode 644), "uri" (pin= directly) or nil (not given).
        let token: String?, apiSecret: String?, pin: String?
        /// Exit status and what stderr says (nil: joined).
        let refusal: String?
        var testDescription: String { name }
    }

    @Test("right credentials join; a wrong one is refused naming it, with an alarm, while the lesson plays on; a file others can read ends the start with exit 1; a pin on the command line is said once", arguments: [
        Case(name: "token and pin file", token: "right", apiSecret: nil, pin: "right", refusal: nil),
        Case(name: "API secret and pin file", token: nil, apiSecret: "right", pin: "right", refusal: nil),
        Case(name: "pin given directly", token: "right", apiSecret: nil, pin: "uri", refusal: nil),
        Case(name: "wrong token", token: "wrong", apiSecret: nil, pin: "right", refusal: "Janus refused the token from "),
        Case(name: "wrong API secret", token: nil, apiSecret: "wrong", pin: "right", refusal: "Janus refused the API secret from "),
        Case(name: "no credentials", token: nil, apiSecret: nil, pin: "right", refusal: "give apisecret-file=FILE or token-file=FILE"),
        Case(name: "wrong pin", token: "right", apiSecret: nil, pin: "wrong", refusal: "refused the pin from "),
        Case(name: "no pin", token: "right", apiSecret: nil, pin: nil, refusal: "room 3333 wants a pin"),
        Case(name: "token file others can read", token: "open", apiSecret: nil, pin: "right", refusal: "kiosk-secrets/token: others can read it (mode 644); make it readable by its owner only: chmod 600"),
        Case(name: "pin file others can read", token: "right", apiSecret: nil, pin: "open", refusal: "kiosk-secrets/pin: others can read it (mode 644); make it readable by its owner only: chmod 600"),
    ])
    func credentials(_ test: Case) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 3, volume: 0.05)
        let janus = try JanusServer(in: folder)
        try Self.secretFile(janus.folder.appendingPathComponent("token_auth_secret"), Self.tokenSecret)
        try Self.secretFile(janus.folder.appendingPathComponent("api_secret"), Self.apiSecret)
        try Self.secretFile(janus.folder.appendingPathComponent("room_pin"), Self.pin)
        try await janus.start()
        defer { janus.kill() }

        let secrets = folder.appendingPathComponent("kiosk-secrets")
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        let token = try Self.token(secretIn: janus.folder.appendingPathComponent("token_auth_secret"))
        var query = ["display=locked"]
        func give(_ option: String, _ how: String?, right: String, wrong: String) throws {
            guard let how else { return }
            let file = secrets.appendingPathComponent(option)
            try Self.secretFile(file, how == "wrong" ? wrong : right, mode: how == "open" ? 0o644 : 0o600)
            query.append("\(option)-file=\(file.path)")
        }
        try give("token", test.token, right: token, wrong: "1999999999,janus,janus.plugin.audiobridge:bm90LXRoZS1zaWduYXR1cmU=")
        try give("apisecret", test.apiSecret, right: Self.apiSecret, wrong: "asec-wrong")
        if test.pin == "uri" { query.append("pin=\(Self.pin)") } else { try give("pin", test.pin, right: Self.pin, wrong: "rpin-wrong") }

        let events = folder.appendingPathComponent("events.jsonl")
        let result = try await PlayerProcess.run(["play", lesson.path, "--room", "janus://127.0.0.1:\(janus.port)/3333?" + query.joined(separator: "&"),
                                                  "--mic", "none", "--output", "null", "--events", events.path, "--no-stdin", "--log-level", "debug"], in: folder)
        let written = result.stderr + result.stdout + ((try? String(contentsOf: events, encoding: .utf8)) ?? "")
        if let refusal = test.refusal {
            // A file others can read is refused before anything plays; what the server refuses, while the lesson plays.
            let atStart = refusal.contains("others can read it")
            #expect(result.status == (atStart ? 1 : 0), "stderr: \(result.stderr)")
            #expect(result.stderr.contains(refusal), "stderr: \(result.stderr)")
            #expect(Fixtures.events(events, named: "room-joined").isEmpty)
            #expect(Fixtures.events(events, named: "alarm").filter { $0["code"] as? String == "roomRefused" }.count == (atStart ? 0 : 1))
        } else {
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(Fixtures.events(events, named: "room-joined").count == 1, "stderr: \(result.stderr)")
            // The long poll (a GET, the credentials in its query) is admitted too: a refused one would lose the room.
            #expect(Fixtures.events(events, named: "room-lost").isEmpty, "\(Fixtures.events(events, named: "room-lost"))")
        }
        // A janus:// room that was joined says once that its audio is unencrypted; a pin on the command line is said once more.
        let allWarnings = Fixtures.events(events, named: "room-warning").compactMap { $0["message"] as? String }
        if result.status == 0 { #expect(allWarnings.filter { $0.contains("plain RTP, unencrypted") }.count == 1, "\(allWarnings)") }
        let warnings = allWarnings.filter { !$0.contains("plain RTP, unencrypted") }
        #expect(warnings.count == (test.pin == "uri" ? 1 : 0), "\(warnings)")
        #expect(warnings.allSatisfy { $0.contains("visible on the command line") && $0.contains("pin-file=FILE") && !$0.contains(Self.pin) })
        // The token's signature is the part a listener could replay; the server's secrets, the pin.
        let signature = String(token.split(separator: ":").last ?? "")
        for secret in [Self.tokenSecret, Self.apiSecret, Self.pin, signature, "asec-wrong", "rpin-wrong", "bm90LXRoZS1zaWduYXR1cmU="] {
            #expect(!written.contains(secret), "'\(secret)' was written: \(written)")
        }
        print("FIGURE \(test.name): exit \(result.status); \(result.stderr.split(separator: "\n").last { $0.contains("room") } ?? "")")
    }

    @Test("two kiosks admitted by token and pin file hear each other: one's tone is in the other's output")
    func hearEachOther() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav"), tone = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 10, volume: 0)
        // The talker hears nobody (the listener is muted): a quiet lesson of its own keeps its run from ending as silent (exit 3).
        let talkerLesson = folder.appendingPathComponent("quiet.wav")
        try Fixtures.toneLesson(at: talkerLesson, seconds: 10, volume: 0.02)
        try Fixtures.gstLaunch("audiotestsrc num-buffers=100 samplesperbuffer=4800 wave=sine freq=1000 volume=0.3 ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! wavenc ! filesink location=\(tone.path)")
        let timeline = folder.appendingPathComponent("mic-on.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let janus = try JanusServer(in: folder)
        try Self.secretFile(janus.folder.appendingPathComponent("token_auth_secret"), Self.tokenSecret)
        try Self.secretFile(janus.folder.appendingPathComponent("room_pin"), Self.pin)
        try await janus.start()
        defer { janus.kill() }
        let token = folder.appendingPathComponent("janus.token"), pin = folder.appendingPathComponent("room.pin")
        try Self.secretFile(token, try Self.token(secretIn: janus.folder.appendingPathComponent("token_auth_secret")))
        try Self.secretFile(pin, Self.pin)
        let room = "janus://127.0.0.1:\(janus.port)/3333?token-file=\(token.path)&pin-file=\(pin.path)&display="
        let heard = folder.appendingPathComponent("heard.wav"), events = folder.appendingPathComponent("events.jsonl")
        let listener = try PlayerProcess(["play", lesson.path, "--room", room + "listener", "--mic", "none", "--output", "wav:\(heard.path)",
                                          "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "room-joined").isEmpty }, "stderr: \(listener.stderr)")
        let talker = try PlayerProcess(["play", talkerLesson.path, "--room", room + "talker", "--mic", tone.path, "--script", timeline.path,
                                        "--output", "null", "--no-stdin"], in: folder)
        #expect(try await talker.exitStatus(within: .seconds(40)) == 0, "stderr: \(talker.stderr)")
        #expect(try await listener.exitStatus(within: .seconds(40)) == 0, "stderr: \(listener.stderr)")
        let level = try Fixtures.bandLevel(heard, from: 4, to: 8, band: 900...1_100)
        print("FIGURE the talker's 1 kHz tone in the listener's output, 4-8 s: \(String(format: "%.1f", level)) dBFS")
        #expect(level > -50, "\(level) dBFS")
    }

    /// Writes `text` to `file` with `mode`.
    static func secretFile(_ file: URL, _ text: String, mode: Int = 0o600) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (text + "\n").write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
    }

    /// A token_auth token for `plugin` (the AudioBridge unless given) valid for an hour, signed with the secret in `file`
    /// (read by python3 from the file: the secret is on no command line).
    static func token(secretIn file: URL, plugin: String = "janus.plugin.audiobridge") throws -> String {
        let script = """
            import base64, hashlib, hmac, sys, time
            secret = open(sys.argv[1]).read().strip().encode()
            text = "%d,janus,%s" % (time.time() + 3600, sys.argv[2])
            print(text + ":" + base64.b64encode(hmac.new(secret, text.encode(), hashlib.sha1).digest()).decode())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, file.path, plugin]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, token.contains(":") else { throw PlayerTestError.setupFailed("python3 could not make a token") }
        return token
    }
}
