import ClassroomMeasurement
import Foundation
import Testing

/// The VideoRoom room as a school deploys it: Janus's API over HTTPS with a certificate of the
/// test's own CA, token_auth with a token for the VideoRoom, and a room pin.
@Suite("classroom-player: a secure VideoRoom class (HTTPS, token, pin, mode=sfu)", .serialized)
struct JanusSecureSFURoomTests {
    @Test("HTTPS with the test's own CA, a VideoRoom token and a pin: two kiosks hear each other through room 6666; a wrong pin and a token only for the AudioBridge each refuse the room, naming which, and no secret is shown",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func secureClass() async throws {
        let rig = try WebRTCRoomRig()
        defer { rig.tearDown() }
        let kioskFolder = rig.folder.appendingPathComponent("kiosk-secrets")
        let serverSecret = rig.janusFolder.appendingPathComponent("token_auth_secret")
        try JanusCredentialTests.secretFile(serverSecret, JanusCredentialTests.tokenSecret)
        try JanusCredentialTests.secretFile(rig.janusFolder.appendingPathComponent("room_pin"), JanusCredentialTests.pin)
        let ca = try JanusSecureRoomTests.certificates(for: rig.net.serverAddress, in: rig.folder, server: rig.janusFolder)
        let token = try JanusCredentialTests.token(secretIn: serverSecret, plugin: "janus.plugin.videoroom")
        let bridgeToken = try JanusCredentialTests.token(secretIn: serverSecret)
        let files = [("token", token), ("bridge-token", bridgeToken), ("pin", JanusCredentialTests.pin), ("wrong-pin", "rpin-wrong")]
        for (name, value) in files { try JanusCredentialTests.secretFile(kioskFolder.appendingPathComponent(name), value) }
        func secret(_ name: String) -> String { kioskFolder.appendingPathComponent(name).path }
        let janus = try await rig.startJanus()
        let timeline = try rig.microphoneOn(at: 0.2)

        let base = rig.api(room: 6666, scheme: "https") + "&mode=sfu&ca=\(ca.path)"
        func kiosk(_ name: String, _ query: String, _ options: [String]) throws -> (PlayerProcess, URL) {
            try rig.kiosk(name, room: base + "&display=kiosk-\(name)" + query, options)
        }
        let admitted = "&token-file=\(secret("token"))&pin-file=\(secret("pin"))"
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try kiosk("a", admitted, ["--mic", rig.teacher.path, "--script", timeline.path, "--output", "wav:\(wavA.path)", "--log-level", "info"])
        let (b, eventsB) = try kiosk("b", admitted, ["--mic", rig.student.path, "--script", timeline.path, "--output", "wav:\(wavB.path)", "--log-level", "info"])
        let statusA = try await a.exitStatus(within: .seconds(40)), statusB = try await b.exitStatus(within: .seconds(40))
        let arrivedA = Fixtures.events(eventsA, named: "participant-joined").first?["t"] as? Double
        let arrivedB = Fixtures.events(eventsB, named: "participant-joined").first?["t"] as? Double
        let from = max(arrivedA ?? 0, arrivedB ?? 0) + 1
        let bHearsA = try Fixtures.bandLevel(wavB, from: from, to: 11.5, band: WebRTCRoomRig.teacherBand)
        let aHearsB = try Fixtures.bandLevel(wavA, from: from, to: 11.5, band: WebRTCRoomRig.studentBand)
        print("FIGURE HTTPS VideoRoom class with token and pin: classmates in the mix at A \(arrivedA ?? -1) s, B \(arrivedB ?? -1) s; B hears A \(String(format: "%.1f", bHearsA)) dBFS, A hears B \(String(format: "%.1f", aHearsB)) dBFS")
        #expect(statusA == 0 && statusB == 0, "a: \(a.stderr)\nb: \(b.stderr)\njanus: \(janus.log.suffix(2000))")
        #expect(bHearsA > -50 && aHearsB > -50)
        #expect(Fixtures.events(eventsA, named: "room-warning").isEmpty, "HTTPS and WebRTC: nothing in the clear to warn of")

        let refusals = [
            ("wrong pin", "&token-file=\(secret("token"))&pin-file=\(secret("wrong-pin"))", "room 6666 refused the pin from"),
            ("AudioBridge token", "&token-file=\(secret("bridge-token"))&pin-file=\(secret("pin"))", "for the VideoRoom (405"),
        ]
        for (name, query, message) in refusals {
            let (refused, _) = try kiosk(name.replacingOccurrences(of: " ", with: "-"), query, ["--mic", "none", "--output", "null"])
            let status = try await refused.exitStatus(within: .seconds(30))
            print("FIGURE \(name): exit \(status); \(refused.stderr)")
            // Refused for good, with an alarm; the kiosk's silent lesson plays to its end (exit 3: a silent output).
            #expect(status == 3 && refused.stderr.contains(message), "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("roomRefused"), "\(name): \(refused.stderr)")
            for secret in [token, bridgeToken, JanusCredentialTests.pin, JanusCredentialTests.tokenSecret] { #expect(!refused.stderr.contains(secret)) }
        }
    }
}
