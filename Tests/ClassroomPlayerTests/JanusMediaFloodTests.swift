import ClassroomMeasurement
import Foundation
import Testing

/// Someone on the WebRTC room's media path forges Janus's address: libnice lets through only
/// packets from the address ICE chose, so junk sent as Janus (`scripts/udp-spoof.py`, raw packets
/// from Janus's namespace) reaches the kiosk's srtpdec, where each new SSRC would make a libsrtp
/// stream that is never freed.
@Suite("classroom-player: the WebRTC room under a flood forged from Janus's address", .serialized)
struct JanusMediaFloodTests {
    @Test("60,000 junk packets per Janus socket, each with a new SSRC and Janus's address, neither grow the kiosk nor break the room: refused before srtpdec makes a stream, counted, and the class hears itself after",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func forgedSSRCFlood() async throws {
        let rig = try WebRTCRoomRig(lessonSeconds: 40)
        defer { rig.tearDown() }
        let janus = try await rig.startJanus()
        let timeline = try rig.microphoneOn(at: 0.2)
        // Both are stopped once the class after the flood is heard, however long the flood took to send.
        let control = rig.folder.appendingPathComponent("a.sock").path, controlB = rig.folder.appendingPathComponent("b.sock").path
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try rig.kiosk("a", room: rig.api(room: 2222) + "&display=kiosk-a",
                                         ["--mic", rig.repeated(rig.teacher, times: 6).path, "--script", timeline.path, "--output", "wav:\(wavA.path)", "--control", control])
        let (b, eventsB) = try rig.kiosk("b", room: rig.api(room: 2222) + "&display=kiosk-b",
                                         ["--mic", rig.repeated(rig.student, times: 6).path, "--script", timeline.path, "--output", "wav:\(wavB.path)", "--control", controlB])
        let joined = await waitUntil(timeout: .seconds(15)) {
            !Fixtures.events(eventsA, named: "room-joined").isEmpty && !Fixtures.events(eventsB, named: "room-joined").isEmpty
        }
        #expect(joined, "a: \(a.stderr)\nb: \(b.stderr)\njanus: \(janus.log.suffix(2000))")
        try await Task.sleep(for: .seconds(2))   // ICE and DTLS done, the room's audio flowing

        // Every Janus media socket as the source, to every one of A's: only the pair ICE chose gets through libnice.
        let pid = a.process.processIdentifier
        let janusSockets = try rig.udpSockets(in: rig.net.server, address: rig.net.serverAddress, owner: "pid=\(janus.pid),")
        let kioskSockets = try rig.udpSockets(in: rig.net.kiosks, address: rig.net.kioskAddress, owner: "pid=\(pid),")
        try #require(!janusSockets.isEmpty && !kioskSockets.isEmpty, "Janus's sockets \(janusSockets), A's \(kioskSockets)")
        let before = HostileSender.peakMemory(of: pid)
        let spoofLog = rig.folder.appendingPathComponent("spoof.log")
        let spoof = try rig.startBesideJanus(["/usr/bin/python3", Fixtures.root.appendingPathComponent("scripts/udp-spoof.py").path,
                                              janusSockets.joined(separator: ","), kioskSockets.joined(separator: ","), "60000"], log: spoofLog)
        await Fixtures.finish(spoof, within: .seconds(30), "the spoofer")
        let floodEnded = ContinuousClock.now
        let after = HostileSender.peakMemory(of: pid)
        try await Task.sleep(for: .seconds(5))
        let status = try? ControlClient(path: control).ask(#"{"do":"status"}"#)
        let room = status?["room"] as? [String: Any]
        let since = ContinuousClock.now - floodEnded
        _ = try? ControlClient(path: control).ask(#"{"do":"stop"}"#)
        _ = try? ControlClient(path: controlB).ask(#"{"do":"stop"}"#)
        let statusA = try await a.exitStatus(within: .seconds(20)), statusB = try await b.exitStatus(within: .seconds(20))

        // Each output ends where its kiosk was stopped: the flood ended `since` before that.
        let sent = (try? String(contentsOf: spoofLog, encoding: .utf8)) ?? ""
        let seconds = Double(since.components.seconds) + Double(since.components.attoseconds) / 1e18
        let aHearsB = try Fixtures.bandLevel(wavA, from: Fixtures.duration(wavA) - seconds, to: Fixtures.duration(wavA) - 0.5, band: WebRTCRoomRig.studentBand)
        let bHearsA = try Fixtures.bandLevel(wavB, from: Fixtures.duration(wavB) - seconds, to: Fixtures.duration(wavB) - 0.5, band: WebRTCRoomRig.teacherBand)
        let rejected = room?["rejected_packets"] as? Int ?? -1
        print("FIGURE a flood forged from Janus's address (\(sent.trimmingCharacters(in: .whitespacesAndNewlines)) from \(janusSockets) to \(kioskSockets)): "
              + "A's peak RSS \(before / 1024) -> \(after / 1024) MB, \(rejected) packets rejected, connection \(room?["connection"] ?? "-"); "
              + "after it A hears B \(String(format: "%.1f", aHearsB)) dBFS, B hears A \(String(format: "%.1f", bHearsA)) dBFS")
        #expect(sent.hasPrefix("sent "), "\(sent)")
        #expect(before > 0 && after > 0, "A ended before the flood did: \(a.stderr)")
        #expect(after - before < 20 * 1024, "A's peak RSS grew \(before) -> \(after) kB")
        // The flood reached srtpdec (this is what shows the forgery got through libnice) and was refused there.
        #expect(rejected > 10_000, "A's status: \(String(describing: status))")
        #expect(room?["connection"] as? String == "connected", "A's status: \(String(describing: status))")
        #expect(a.stderr.contains("fail SRTP authentication arrive from the room's media address"), "\(a.stderr.suffix(2000))")
        #expect(aHearsB > -50, "A hears B after the flood: \(aHearsB) dBFS")
        #expect(bHearsA > -50, "B hears A after the flood: \(bHearsA) dBFS")
        #expect(Fixtures.events(eventsA, named: "room-lost").isEmpty, "a: \(a.stderr)")
        #expect(statusA == 0 && statusB == 0, "a: \(a.stderr)\nb: \(b.stderr)")
    }
}
