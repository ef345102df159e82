import ClassroomMeasurement
import Foundation
import Testing

/// The room where Janus is another host than the kiosks: the mix must be sent to an address the
/// Janus host reaches, and a joined room that delivers nothing must say so.
@Suite("classroom-player: a Janus room on another host", .serialized)
struct JanusNetworkTests {
    @Test("Janus in one network namespace, two kiosks in another: each joins from the address that routes to Janus, and B hears A",
          .enabled(if: NetworkNamespaces.available && JanusServer.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func acrossHosts() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let net = try NetworkNamespaces()
        defer { net.tearDown() }
        let lesson = folder.appendingPathComponent("silence.wav"), voice = folder.appendingPathComponent("a.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 12, volume: 0)
        let band = 200...900
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words.", at: voice, band: band)
        let timeline = folder.appendingPathComponent("mic.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let janus = try JanusInNamespace(net, folder: folder)
        defer { janus.stop() }
        #expect(await janus.started(), "janus: \(janus.log)")
        let capture = try await PacketCapture(net, namespace: net.server, interface: net.serverInterface, seconds: 14, folder: folder)
        func kiosk(_ name: String, _ options: [String]) throws -> (PlayerProcess, URL) {
            let events = folder.appendingPathComponent("events-\(name).jsonl")
            let command = [PlayerProcess.executable.path, "play", lesson.path, "--room", "janus://\(net.serverAddress):8088/1234?display=kiosk-\(name)",
                           "--events", events.path, "--no-stdin"] + options
            return (try PlayerProcess(net.exec(in: net.kiosks, command), in: folder, executable: URL(fileURLWithPath: "/usr/sbin/ip")), events)
        }
        let wavB = folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try kiosk("a", ["--mic", voice.path, "--script", timeline.path, "--output", "null"])
        let (b, eventsB) = try kiosk("b", ["--mic", "none", "--output", "wav:\(wavB.path)"])
        // A's own output is silent (a silent lesson, and B has no microphone): exit 3.
        #expect(try await a.exitStatus(within: .seconds(40)) == 3, "stderr: \(a.stderr)")
        let statusB = try await b.exitStatus(within: .seconds(40))
        let joinedB = Fixtures.events(eventsB, named: "room-joined").first?["t"] as? Double
        let heard = try Fixtures.bandLevel(wavB, from: (joinedB ?? 0) + 1.5, to: 11.5, band: band)
        print("FIGURE across namespaces: B joined at \(joinedB.map { String(format: "%.2f", $0) } ?? "-") s, B hears A \(String(format: "%.1f", heard)) dBFS")
        #expect(!Fixtures.events(eventsA, named: "room-joined").isEmpty && joinedB != nil, "a: \(a.stderr) b: \(b.stderr)")
        #expect(statusB == 0, "stderr: \(b.stderr)")
        #expect(heard > -50, "B hears A: \(heard) dBFS")
        #expect(Fixtures.events(eventsB, named: "room-silent").isEmpty)
        // The plain-RTP room as a listener on the path sees it (what JanusWebRTCTests shows encrypted): Opus in the clear.
        await capture.finish()
        let wire = try capture.summary()
        print("FIGURE on the wire of the plain-RTP room: \(wire)")
        #expect(wire.rtp > 500 && wire.opusFirstBytes.count < 16 && wire.dtls == 0, "\(wire)")
    }

    @Test("a joined room that delivers no audio raises 1025 on rtc-room and says why (room-silent)")
    func joinedButSilent() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 8, volume: 0.05)
        // The misbehaving Janus's plain mode: it answers the join and then sends nothing.
        let janus = try await MisbehavingJanus("no-audio", in: folder)
        defer { janus.stop() }
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--room", janus.room, "--mic", "none", "--output", "null", "--events", events.path, "--no-stdin"], in: folder)
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        #expect(!Fixtures.events(events, named: "room-joined").isEmpty)
        let alarm = Fixtures.events(events, named: "alarm").first { $0["number"] as? Int == 1025 }
        #expect(alarm?["owner"] as? String == "rtc-room", "\(Fixtures.events(events, named: "alarm"))")
        let silent = Fixtures.events(events, named: "room-silent").first?["message"] as? String ?? ""
        #expect(silent.contains("none of the room's audio arrives at 127.0.0.1:"), "\(silent)")
    }
}
