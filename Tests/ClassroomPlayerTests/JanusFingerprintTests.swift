import ClassroomMeasurement
import Foundation
import Testing

/// The WebRTC room's DTLS peer must be the one Janus's answer named: a proxy in front of the real
/// Janus (`scripts/fingerprint-proxy.py`) rewrites the answer's `a=fingerprint`, as someone on the
/// media path would, and the kiosk that joined through it neither hears nor is heard. The same
/// joins show that a kiosk neither searches the LAN for a UPnP gateway nor offers TCP candidates.
@Suite("classroom-player: the WebRTC room checks the DTLS certificate against the answer's fingerprint", .serialized)
struct JanusFingerprintTests {
    @Test("a kiosk whose answer's fingerprint was rewritten drops the connection, says why, and exchanges no audio; a kiosk joined directly is unaffected; neither searches for a UPnP gateway or offers TCP",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func rewrittenFingerprint() async throws {
        let rig = try WebRTCRoomRig()
        defer { rig.tearDown() }
        let janus = try await rig.startJanus()
        let proxyLog = rig.folder.appendingPathComponent("proxy.log")
        let proxy = try rig.startBesideJanus(["/usr/bin/python3", Fixtures.root.appendingPathComponent("scripts/fingerprint-proxy.py").path, "8089", "\(rig.net.serverAddress):8088"],
                                             log: proxyLog)
        defer { Fixtures.stop(proxy) }
        let log = { (try? String(contentsOf: proxyLog, encoding: .utf8)) ?? "" }
        #expect(await waitUntil(timeout: .seconds(10)) { log().contains("listening") }, "\(log())")

        // A UPnP gateway's ears on the LAN: libnice searches for one on every interface unless told not to.
        let ssdpLog = rig.folder.appendingPathComponent("ssdp.log")
        let ssdp = try rig.startBesideJanus(["/usr/bin/python3", Fixtures.root.appendingPathComponent("scripts/ssdp-listener.py").path, rig.net.serverAddress], log: ssdpLog)
        defer { Fixtures.stop(ssdp) }
        let heard = { (try? String(contentsOf: ssdpLog, encoding: .utf8)) ?? "" }
        #expect(await waitUntil(timeout: .seconds(10)) { heard().contains("listening") }, "\(heard())")

        let timeline = try rig.microphoneOn(at: 0.2)
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let proxied = "http://\(rig.net.serverAddress):8089/janus?room=2222&display=kiosk-a"
        let (a, eventsA) = try rig.kiosk("a", room: proxied, ["--mic", rig.teacher.path, "--script", timeline.path, "--output", "wav:\(wavA.path)"])
        let (b, eventsB) = try rig.kiosk("b", room: rig.api(room: 2222) + "&display=kiosk-b", ["--mic", rig.student.path, "--script", timeline.path, "--output", "wav:\(wavB.path)"])
        let statusA = try await a.exitStatus(within: .seconds(40)), statusB = try await b.exitStatus(within: .seconds(40))

        let lostA = Fixtures.events(eventsA, named: "room-lost").compactMap { $0["message"] as? String }
        let aHearsB = try Fixtures.bandLevel(wavA, from: 2, to: 11.5, band: WebRTCRoomRig.studentBand)
        let bHearsA = try Fixtures.bandLevel(wavB, from: 2, to: 11.5, band: WebRTCRoomRig.teacherBand)
        print("FIGURE a rewritten DTLS fingerprint: A lost the room \(lostA.count) times (\(lostA.first ?? "-")); A hears B \(String(format: "%.1f", aHearsB)) dBFS, "
              + "B hears A \(String(format: "%.1f", bHearsA)) dBFS")
        #expect(log().contains("rewrote a fingerprint"), "\(log())")
        // Neither kiosk asked the LAN for a gateway, and A offered UDP candidates only (ICE-TCP off).
        #expect(!heard().contains("ssdp from"), "\(heard())")
        let offers = log().split(separator: "\n").filter { $0.hasPrefix("offer candidates:") }
        print("FIGURE joins on the LAN: \(heard().components(separatedBy: "ssdp from").count - 1) SSDP datagrams heard; \(offers)")
        #expect(!offers.isEmpty && offers.allSatisfy { $0.hasSuffix("TCP 0") && !$0.contains("UDP 0,") }, "\(offers)")
        // Both play a silent lesson and hear no one: each ends with exit 3 (a silent output), not a crash.
        #expect(statusA == 3 && statusB == 3, "a: \(a.stderr)\nb: \(b.stderr)")
        #expect(lostA.contains { $0.contains("is not the one Janus's answer named") }, "\(lostA)\na: \(a.stderr)")
        #expect(aHearsB < -60, "A heard the room through an unverified peer: \(aHearsB) dBFS")
        #expect(bHearsA < -60, "A's voice reached the room through an unverified peer: \(bHearsA) dBFS")
        #expect(!Fixtures.events(eventsB, named: "room-joined").isEmpty && Fixtures.events(eventsB, named: "room-lost").isEmpty,
                "b: \(b.stderr)\njanus: \(janus.log.suffix(2000))")
    }
}
