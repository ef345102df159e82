import Foundation
import Testing

/// A control-socket client: one line out, one line back.
final class ControlClient {
    private let descriptor: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: path.utf8.prefix(raw.count - 1)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw PlayerTestError.setupFailed("cannot connect to \(path)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)   // a bounded wait for each answer
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends one line and returns the answer, parsed. With `partialSendAllowed`, the player may
    /// hang up before taking the whole line (it refuses over-long lines) and its answer still counts.
    func ask(_ line: String, partialSendAllowed: Bool = false) throws -> [String: Any] {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 {
                guard partialSendAllowed else { throw PlayerTestError.setupFailed("send failed") }
                break
            }
            bytes = bytes.dropFirst(sent)
        }
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let answer = Data(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else { throw PlayerTestError.setupFailed("not an object") }
                return object
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw PlayerTestError.setupFailed("no answer to \(line)") }
            pending += chunk[0..<count]
        }
    }

    deinit { close(descriptor) }
}

@Suite("classroom-player: control over the socket and standard input, and stopping", .serialized)
struct ControlTests {
    @Test("every socket command gets one JSON answer; mistakes get error codes; stop ends the run with 0 and removes the socket")
    func socketCommands() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 20)
        let socketPath = folder.appendingPathComponent("control.sock").path
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--mic", "none", "--output", "null", "--control", socketPath, "--events", events.path], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        var status = stat()
        #expect(lstat(socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)

        let client = try ControlClient(path: socketPath)
        let first = try client.ask(#"{"do":"status","id":7}"#)
        #expect(first["ok"] as? Bool == true)
        #expect(first["id"] as? Int == 7)
        #expect((first["lesson"] as? [String: Any])?["state"] as? String == "playing")
        #expect((first["session"] as? [String: Any])?["profile"] as? String == "media")
        // Once the lesson is 0.6 s in, the output meter's latest window is all tone (−23.0 dBFS RMS).
        var outputLevel: Double?
        #expect(await waitUntil(timeout: .seconds(10)) {
            let status = try? client.ask(#"{"do":"status"}"#)
            outputLevel = (status?["levels"] as? [String: Any])?["output_db"] as? Double
            return ((status?["lesson"] as? [String: Any])?["position"] as? Double ?? 0) >= 0.6
        })
        #expect(abs((outputLevel ?? 0) - -23.0) < 0.5)

        let refusals: [(String, String)] = [
            (#"{"do":"duck","on":true,"bogus":1}"#, "unknown-field"),
            (#"{"do":"fly"}"#, "unknown-verb"),
            ("not json", "bad-request"),
            (#"{"on":true}"#, "missing-field"),
            (#"{"do":"volume","channel":"media","value":2}"#, "bad-value"),
            (#"{"do":"mic","on":"yes"}"#, "bad-value"),
            (#"{"do":"mic","on":true}"#, "unavailable"),                      // --mic none
            (#"{"do":"release","owner":"nobody"}"#, "unavailable"),
            (#"{"do":"duck","on":false}"#, "unavailable"),
            (#"{"do":"seek","position":99}"#, "bad-value"),
        ]
        for (line, code) in refusals {
            let answer = try client.ask(line)
            #expect(answer["ok"] as? Bool == false, "\(line)")
            #expect(answer["error"] as? String == code, "\(line) → \(answer)")
            #expect((answer["message"] as? String)?.isEmpty == false)
        }
        let duck = try client.ask(#"{"do":"duck","on":true}"#)
        #expect(duck["ducked"] as? Bool == true)
        let lease = try client.ask(#"{"do":"lease","owner":"follow-reading","need":"playback"}"#)
        #expect(lease["ok"] as? Bool == true, "\(lease)")
        let release = try client.ask(#"{"do":"release","owner":"follow-reading"}"#)
        #expect(release["released"] as? Int == 1)
        #expect(try client.ask(#"{"do":"pause"}"#)["lesson"] as? String == "paused")
        #expect((try client.ask(#"{"do":"status"}"#)["lesson"] as? [String: Any])?["state"] as? String == "paused")
        #expect(try client.ask(#"{"do":"seek","position":2.5}"#)["ok"] as? Bool == true)
        #expect(try client.ask(#"{"do":"resume"}"#)["lesson"] as? String == "playing")

        // Standard input takes the same lines; the answers come on standard output.
        player.stdin.fileHandleForWriting.write(Data("{\"do\":\"status\",\"id\":\"from-stdin\"}\n".utf8))
        #expect(await waitUntil(timeout: .seconds(10)) { player.stdout.contains(#""id":"from-stdin""#) }, "stdout: \(player.stdout)")

        let stop = try client.ask(#"{"do":"stop"}"#)
        #expect(stop["stopping"] as? Bool == true)
        #expect(try await player.exitStatus(within: .seconds(15)) == 0, "stderr: \(player.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socketPath))
        let stopped = try #require(Fixtures.events(events, named: "stopped").first)
        #expect(stopped["reason"] as? String == "stop-command")
        #expect(Fixtures.events(events, named: "ducking-changed").first?["ducked"] as? Bool == true)
    }

    @Test("the socket under abuse: a stale socket file is replaced, another file refused; a 1 MB line is refused; 100 clients at once are all answered")
    func socketAbuse() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 30)

        // Something that is not a socket at the path: refused, and left alone.
        let occupied = folder.appendingPathComponent("occupied.sock").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: occupied))
        let refused = try await PlayerProcess.run(["play", lesson.path, "--mic", "none", "--output", "null", "--control", occupied, "--no-stdin"], in: folder)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("not a socket"))
        #expect((try? String(contentsOfFile: occupied, encoding: .utf8)) == "keep me")

        // A stale socket (its player died without removing it) is replaced.
        let socketPath = folder.appendingPathComponent("control.sock").path
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: socketPath.utf8.prefix(raw.count - 1)) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(stale)
        #expect(bound == 0 && FileManager.default.fileExists(atPath: socketPath))
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--mic", "none", "--output", "null", "--control", socketPath, "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")

        // A 1 MB line: refused with bad-request and that client disconnected; the player goes on.
        let flooder = try ControlClient(path: socketPath)
        let huge = try flooder.ask(#"{"do":"status","pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#, partialSendAllowed: true)
        #expect(huge["ok"] as? Bool == false)
        #expect(huge["error"] as? String == "bad-request")
        #expect((huge["message"] as? String)?.contains("longer than") == true)

        // 100 clients at once, each asking for the status: 100 answers, each to its own question.
        let answered = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask {
                    guard let client = try? ControlClient(path: socketPath),
                          let answer = try? client.ask(#"{"do":"status","id":\#(index)}"#) else { return false }
                    return answer["ok"] as? Bool == true && answer["id"] as? Int == index
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        print("FIGURE control socket: \(answered) of 100 concurrent clients answered")
        #expect(answered == 100)
        let after = try ControlClient(path: socketPath)
        #expect(try after.ask(#"{"do":"stop"}"#)["stopping"] as? Bool == true)
        #expect(try await player.exitStatus(within: .seconds(15)) == 0, "stderr: \(player.stderr)")
    }

    @Test("SIGTERM mid-run stops cleanly with 143 and a finalised WAV")
    func sigterm() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("mix.wav")
        let player = try PlayerProcess(["play", Fixtures.sample("lesson.webm"), "--live", Fixtures.sample("live-feed.ogg"),
                                        "--output", "wav:\(wav.path)", "--no-stdin"], in: folder)
        // 1.5 s of 48 kHz stereo S16 written (under its temporary name until finalised): it is playing.
        let bytes = {
            let writing = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.first { $0.hasPrefix(".mix.wav.writing-") }
            return writing.flatMap { ((try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.size]) as? Int) } ?? 0
        }
        #expect(await waitUntil(timeout: .seconds(15)) { bytes() > 48_000 * 4 * 3 / 2 }, "stderr: \(player.stderr)")
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(10)) == 143, "stderr: \(player.stderr)")
        let audio = try WAVFile(wav)
        print("FIGURE SIGTERM: WAV of \(audio.seconds) s, header matches file: \(audio.headerMatchesFile), RMS \(audio.rms(from: 0, to: audio.seconds)) dBFS")
        #expect(audio.headerMatchesFile)
        #expect(audio.seconds > 1.4 && audio.seconds < 9)
        #expect(audio.rms(from: 0.2, to: 1.4) > -35)
        #expect(player.stdout.contains("Wrote \(wav.path): "))
    }
}
