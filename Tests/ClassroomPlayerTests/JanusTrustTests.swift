import Foundation
import Testing

/// The room against a Janus that misbehaves (`scripts/misbehaving-janus.py`): the kiosk takes
/// nothing from it but Janus's own answers to its own requests, and the class never waits for it.
@Suite("classroom-player: a Janus that misbehaves neither holds nor takes the class", .serialized)
struct JanusTrustTests {
    /// A folder with a quiet tone lesson of `seconds`.
    private func lesson(seconds: Int) throws -> (URL, URL) {
        let folder = try Fixtures.folder()
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: seconds, volume: 0.05)
        return (folder, lesson)
    }

    /// A kiosk playing a quiet lesson of `seconds` in the room of a Janus misbehaving as `mode`.
    private func kiosk(_ mode: String, seconds: Int) async throws -> (folder: URL, janus: MisbehavingJanus, player: PlayerProcess, events: URL) {
        let (folder, lesson) = try lesson(seconds: seconds)
        let janus = try await MisbehavingJanus(mode, in: folder)
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--room", janus.room, "--mic", "none", "--output", "null", "--events", events.path, "--no-stdin"], in: folder)
        return (folder, janus, player, events)
    }

    @Test("a server that redirects is retried while the lesson plays to its end; one that wants a secret or token is refused with an alarm, and the lesson plays on", arguments: [
        ("redirect", "redirects to /elsewhere/janus, which the kiosk does not follow", false),
        ("forbidden", "the server wants an API secret or token", true),
    ])
    func refused(mode: String, message: String, refusedForGood: Bool) async throws {
        let (folder, lesson) = try lesson(seconds: 4)
        defer { try? FileManager.default.removeItem(at: folder) }
        let janus = try await MisbehavingJanus(mode, in: folder)
        defer { janus.stop() }
        let events = folder.appendingPathComponent("events.jsonl")
        let result = try await PlayerProcess.run(["play", lesson.path, "--room", janus.room, "--mic", "none", "--output", "null", "--events", events.path, "--no-stdin"], in: folder)
        let alarms = Fixtures.events(events, named: "alarm").filter { $0["code"] as? String == "roomRefused" }
        let creates = janus.seen.components(separatedBy: "\n").filter { $0.hasSuffix(" create") }.count
        print("FIGURE \(mode) at the first join: exit \(result.status), \(creates) joins tried, \(alarms.count) roomRefused alarms")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(Fixtures.events(events, named: "stopped").first?["reason"] as? String == "completed")
        #expect(alarms.count == (refusedForGood ? 1 : 0), "\(Fixtures.events(events, named: "alarm"))")
        #expect(Fixtures.events(events, named: "room-refused").count == (refusedForGood ? 1 : 0))
        #expect(refusedForGood ? creates == 1 : creates >= 2, "\(janus.seen)")
        #expect(!janus.seen.contains("POST /elsewhere"), "the redirect was followed: \(janus.seen)")
    }

    @Test("a room refused for good when nothing else plays (the lesson could not) ends the run with exit 1 and says why")
    func refusedWithNothingElse() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("not-a-lesson.wav")
        try Data("this is not audio\n".utf8).write(to: lesson)
        // The refusal comes once the lesson failed, while the room still stood for the class (a
        // fixed delay lost the race to a slow start on a loaded machine).
        let release = folder.appendingPathComponent("refuse-now")
        let janus = try await MisbehavingJanus("late-forbidden", release: release, in: folder)
        defer { janus.stop() }
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--room", janus.room, "--mic", "none", "--output", "null", "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(20)) { !Fixtures.events(events, named: "lesson-failed").isEmpty }, "stderr: \(player.stderr)")
        try Data().write(to: release)
        let result = (status: try await player.exitStatus(within: .seconds(60)), stderr: player.stderr)
        #expect(Fixtures.events(events, named: "lesson-failed").first?["class_goes_on"] as? Bool == true, "stderr: \(result.stderr)")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the server wants an API secret or token"), "stderr: \(result.stderr)")
        #expect(Fixtures.events(events, named: "stopped").first?["reason"] as? String == "cannot-use")
    }

    @Test("a long poll of 150 MB is cut off at 1 MiB: the room is lost and says why, the player's memory stays bounded, the class plays to its end")
    func hugeReply() async throws {
        let (folder, janus, player, events) = try await kiosk("huge-poll", seconds: 8)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(20)) { !Fixtures.events(events, named: "room-lost").isEmpty }, "stderr: \(player.stderr)")
        let peak = (try? String(contentsOfFile: "/proc/\(player.process.processIdentifier)/status", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        print("FIGURE peak RSS after the 150 MB reply: \(peak / 1024) MB")
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        let lost = Fixtures.events(events, named: "room-lost").first?["message"] as? String ?? ""
        #expect(lost.contains("of more than 1024 KiB"), "\(lost)")
        #expect(peak > 0 && peak < 200 * 1024, "peak RSS \(peak) kB")
        #expect(!janus.seen.contains("huge reply sent whole"), "\(janus.seen)")
    }

    @Test("a chunked long poll whose chunk size is negative is a lost room, not a crash: the class plays to its end", arguments: ["negative-chunk", "huge-negative-chunk"])
    func negativeChunk(mode: String) async throws {
        let (folder, janus, player, events) = try await kiosk(mode, seconds: 6)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(20)) { !Fixtures.events(events, named: "room-lost").isEmpty }, "stderr: \(player.stderr)")
        let lost = Fixtures.events(events, named: "room-lost").first?["message"] as? String ?? ""
        #expect(lost.contains("a chunked reply that does not decode"), "\(lost)")
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
    }

    @Test("a Janus that drops every join at once is rejoined ever more slowly (1, 2, 4, 8 s …), not every second")
    func droppedJoins() async throws {
        let (folder, janus, player, events) = try await kiosk("drop-join", seconds: 14)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        let joins = janus.seen.components(separatedBy: "\n").filter { $0.hasSuffix(" create") }.count
        let lost = Fixtures.events(events, named: "room-lost").count
        print("FIGURE a Janus dropping every join, 14 s of class: \(joins) joins, \(lost) room-lost")
        #expect(lost >= 2, "stderr: \(player.stderr)")
        #expect(joins <= 6, "\(joins) joins in 14 s: \(janus.seen)")
    }

    @Test("a long poll answered [] at once is paced to about one a second, not spun on")
    func instantEmptyPolls() async throws {
        let (folder, janus, player, events) = try await kiosk("empty-poll", seconds: 6)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "room-joined").isEmpty }, "stderr: \(player.stderr)")
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        let polls = janus.seen.components(separatedBy: "\n").filter { $0.hasPrefix("GET ") }.count
        print("FIGURE a Janus answering every long poll [] at once, 6 s of class: \(polls) polls")
        #expect(polls >= 3 && polls <= 12, "\(polls) polls")
    }

    @Test("a Janus announcing 500 new participants on every poll is tracked up to 200, said once, and grows neither the player nor its events")
    func crowd() async throws {
        let (folder, janus, player, events) = try await kiosk("crowd", seconds: 8)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        let crowded = { Fixtures.events(events, named: "room-warning").contains { ($0["message"] as? String)?.contains("more than 200") == true } }
        #expect(await waitUntil(timeout: .seconds(15)) { crowded() }, "stderr: \(player.stderr)")
        // Crowded polls go on until the lesson ends; the peak is read while they do.
        try await Task.sleep(for: .seconds(3))
        let peak = HostileSender.peakMemory(of: player.process.processIdentifier)
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        let joined = Fixtures.events(events, named: "room-participant").count
        let warnings = Fixtures.events(events, named: "room-warning").compactMap { $0["message"] as? String }.filter { $0.contains("more than 200 participants") }
        let size = (try FileManager.default.attributesOfItem(atPath: events.path)[.size] as? Int) ?? 0
        let polls = janus.seen.components(separatedBy: "\n").filter { $0.hasPrefix("GET ") }.count
        print("FIGURE a Janus announcing 500 participants a poll (\(polls) polls): \(joined) room-participant events, events file \(size / 1024) KiB, peak RSS \(peak / 1024) MB")
        #expect(polls > 5)
        #expect(joined <= 200 && warnings.count == 1, "\(joined) participants, warnings \(warnings)")
        #expect(size < 1 << 20, "events file \(size) bytes")
        #expect(peak > 0 && peak < 150 * 1024, "peak RSS \(peak) kB")
    }

    @Test("a 'joined' for another transaction is not taken as ours: no room-joined, the join times out as a lost room")
    func foreignJoined() async throws {
        let (folder, janus, player, events) = try await kiosk("foreign-joined", seconds: 14)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(25)) { !Fixtures.events(events, named: "room-lost").isEmpty }, "stderr: \(player.stderr)")
        let lost = Fixtures.events(events, named: "room-lost").first?["message"] as? String ?? ""
        #expect(lost.contains("no answer to 'join'"), "\(lost)")
        #expect(Fixtures.events(events, named: "room-joined").isEmpty)
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
    }

    @Test("a Janus that acks the join and then holds its long poll does not hold the class: it starts, and SIGTERM ends it at once")
    func silentJoin() async throws {
        let (folder, janus, player, events) = try await kiosk("silent-join", seconds: 30)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(15)) { janus.seen.contains("held") }, "\(janus.seen)")
        // The poll is held for 60 s: the class starts while it is.
        #expect(await waitUntil(timeout: .seconds(8)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        let signalled = ContinuousClock.now
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(5)) == 143, "stderr: \(player.stderr)")
        print("FIGURE SIGTERM to exit with the join's poll held: \(ContinuousClock.now - signalled)")
        #expect(!Fixtures.events(events, named: "stopped").isEmpty)
    }

    @Test("a Janus that hangs once joined does not hold the stop: SIGTERM ends the player while its leave and destroy go unanswered")
    func hangsOnLeave() async throws {
        let (folder, janus, player, events) = try await kiosk("hang-after-join", seconds: 30)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "room-joined").isEmpty }, "stderr: \(player.stderr)")
        let signalled = ContinuousClock.now
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(4)) == 143, "stderr: \(player.stderr)")
        print("FIGURE SIGTERM to exit with Janus hanging: \(ContinuousClock.now - signalled)")
        #expect(janus.seen.contains("POST /janus/1001/2002 held") || janus.seen.contains("POST /janus/1001 held"), "\(janus.seen)")
    }

    @Test("HTTP 500 at the start is retried like a lost room, not exit 1: room-lost, then room-joined, and the class plays to its end")
    func serverErrorAtStart() async throws {
        let (folder, janus, player, events) = try await kiosk("error-500", seconds: 14)
        defer { janus.stop(); try? FileManager.default.removeItem(at: folder) }
        #expect(await waitUntil(timeout: .seconds(25)) { !Fixtures.events(events, named: "room-joined").isEmpty }, "stderr: \(player.stderr)")
        let lost = Fixtures.events(events, named: "room-lost").first?["message"] as? String ?? ""
        #expect(lost.contains("HTTP status 500"), "\(lost)")
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
    }
}
