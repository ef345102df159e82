@testable import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging
import Synchronization
import Testing
@testable import ClassroomNetwork

/// A room lost from outside its long poll (a WebRTC connection that failed) rejoins after its
/// backoff, against `scripts/misbehaving-janus.py hang-after-join`, whose polls are held 60 s once
/// it said `joined` — as Janus holds a destroyed session's poll until its 30 s are up.
@Suite("A lost room does not wait out its session's long poll")
struct JanusRoomLossTests {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/misbehaving-janus.py")

    @Test("lost while its poll is held: the next session is created after the 1 s backoff, not when the poll ends; leaving cuts the held rejoin and lets go of the room")
    func lossCutsThePoll() throws {
        try GStreamer.initialize()
        let port = try LocalPort.free(.tcp)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("janus-loss-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let janus = try SpawnedProcess.start("/usr/bin/python3", [Self.script.path, "hang-after-join", "\(port)"], output: log.path)
        defer { kill(janus, SIGKILL); waitpid(janus, nil, 0) }
        let seen = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(Poll.blocking(within: .seconds(10)) { seen().contains("listening") }, "the fake Janus did not start: \(seen())")

        let logger = Logger(label: "janus-room-loss-test")
        var engine: AudioEngine? = try AudioEngine(output: .discard, logger: logger)
        try engine?.start()
        defer { engine?.stop() }
        weak let pipeline = engine?.pipeline
        var room: JanusRoom? = try JanusRoom(address: try JanusRoomAddress(uri: "janus://127.0.0.1:\(port)/1234?display=kiosk"), engine: try #require(engine),
                                             localAddress: "127.0.0.1", logger: logger)
        weak let left = room
        let joined = Mutex(0)
        try room?.join(muted: true) { event in if case .joined = event { joined.withLock { $0 += 1 } } }
        defer { room?.leave() }
        #expect(Poll.blocking(within: .seconds(10)) { joined.withLock { $0 } == 1 }, "never joined: \(seen())")
        // The poll after `joined` is the one held.
        #expect(Poll.blocking(within: .seconds(20)) { seen().components(separatedBy: "GET /janus/1001").count > 2 }, "\(seen())")

        let creates = { seen().components(separatedBy: "POST /janus create").count - 1 }
        let createdBefore = creates()
        #expect(createdBefore == 1, "the room rejoined on its own before the test lost it: \(seen())")
        let lostAt = ContinuousClock.now
        room?.lost(session: 1001, because: "the test lost it")
        // The held poll would end 60 s after it began; 20 s tells the backoff from it with room for a
        // loaded machine. Before 1 s would skip the backoff. The waits are on this thread (Poll.blocking).
        let rejoining = Poll.blocking(within: .seconds(20)) { creates() > createdBefore }
        let rejoinedAfter = ContinuousClock.now - lostAt
        print("FIGURE room lost with its poll held: next session asked for after \(rejoinedAfter)")
        #expect(rejoining, "no new session within 20 s of the loss: \(seen())")
        #expect(rejoinedAfter >= JanusRoom.backoff[0], "the rejoin did not wait its backoff")

        // The rejoin's `create` is held too: leaving cuts it, and the room's thread lets go of the room (and its engine).
        let leaving = ContinuousClock.now
        room?.leave()
        room = nil
        print("FIGURE leaving with the rejoin held: \(ContinuousClock.now - leaving)")
        #expect(left == nil, "the room's thread still holds the room after leave()")
        // Nor does anything of the room keep the engine's pipeline once the engine is gone (the audio watch held it 3 s).
        engine?.stop()
        engine = nil
        #expect(pipeline == nil, "the engine's pipeline is still held after the room left and the engine went")
    }
}
