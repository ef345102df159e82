import ClassroomMeasurement
import Foundation
import Testing

/// The WebRTC room as a school deploys it: Janus's API over HTTPS with a certificate of the
/// test's own CA (given as ca=), token_auth and a room pin, a room that takes no plain RTP.
@Suite("classroom-player: a secure Janus room (HTTPS, token, pin, WebRTC)", .serialized)
struct JanusSecureRoomTests {
    @Test("HTTPS with the test's own CA, token_auth and a pin, in a room without plain RTP: two kiosks hear each other; a wrong token, a wrong pin and no ca= (the system's CAs) each end the start with exit 1 naming which",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func secureRoom() async throws {
        let rig = try WebRTCRoomRig()
        defer { rig.tearDown() }
        let kioskFolder = rig.folder.appendingPathComponent("kiosk-secrets")
        try JanusCredentialTests.secretFile(rig.janusFolder.appendingPathComponent("token_auth_secret"), JanusCredentialTests.tokenSecret)
        try JanusCredentialTests.secretFile(rig.janusFolder.appendingPathComponent("room_pin"), JanusCredentialTests.pin)
        let ca = try Self.certificates(for: rig.net.serverAddress, in: rig.folder, server: rig.janusFolder)
        let token = try JanusCredentialTests.token(secretIn: rig.janusFolder.appendingPathComponent("token_auth_secret"))
        let files = [("token", token), ("wrong-token", token.replacingOccurrences(of: ":", with: ":AAAA")), ("pin", JanusCredentialTests.pin), ("wrong-pin", "rpin-wrong")]
        for (name, value) in files { try JanusCredentialTests.secretFile(kioskFolder.appendingPathComponent(name), value) }
        func secret(_ name: String) -> String { kioskFolder.appendingPathComponent(name).path }
        let janus = try await rig.startJanus()
        #expect(janus.log.contains("HTTPS webserver started"), "janus: \(janus.log.suffix(2000))")
        let timeline = try rig.microphoneOn(at: 0.2)

        let base = rig.api(room: 4444, scheme: "https")
        func kiosk(_ name: String, _ query: String, _ options: [String]) throws -> (PlayerProcess, URL) {
            try rig.kiosk(name, room: base + "&display=kiosk-\(name)" + query, options)
        }
        let admitted = "&ca=\(ca.path)&token-file=\(secret("token"))&pin-file=\(secret("pin"))"
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try kiosk("a", admitted, ["--mic", rig.teacher.path, "--script", timeline.path, "--output", "wav:\(wavA.path)"])
        let (b, eventsB) = try kiosk("b", admitted, ["--mic", rig.student.path, "--script", timeline.path, "--output", "wav:\(wavB.path)"])
        let statusA = try await a.exitStatus(within: .seconds(40)), statusB = try await b.exitStatus(within: .seconds(40))
        let joinedA = Fixtures.events(eventsA, named: "room-joined").first?["t"] as? Double
        let joinedB = Fixtures.events(eventsB, named: "room-joined").first?["t"] as? Double
        let from = max(joinedA ?? 0, joinedB ?? 0) + 1.5
        let bHearsA = try Fixtures.bandLevel(wavB, from: from, to: 11.5, band: WebRTCRoomRig.teacherBand)
        let aHearsB = try Fixtures.bandLevel(wavA, from: from, to: 11.5, band: WebRTCRoomRig.studentBand)
        print("FIGURE HTTPS room with token and pin: B hears A \(String(format: "%.1f", bHearsA)) dBFS, A hears B \(String(format: "%.1f", aHearsB)) dBFS")
        #expect(statusA == 0 && statusB == 0, "a: \(a.stderr)\nb: \(b.stderr)\njanus: \(janus.log.suffix(2000))")
        #expect(bHearsA > -50 && aHearsB > -50)
        #expect(Fixtures.events(eventsA, named: "room-warning").isEmpty, "HTTPS and WebRTC: nothing in the clear to warn of")

        let refusals = [
            ("wrong token", "&ca=\(ca.path)&token-file=\(secret("wrong-token"))&pin-file=\(secret("pin"))", "Janus refused the token from"),
            ("wrong pin", "&ca=\(ca.path)&token-file=\(secret("token"))&pin-file=\(secret("wrong-pin"))", "refused the pin from"),
            ("the system's CAs", "&token-file=\(secret("token"))&pin-file=\(secret("pin"))", "certificate fails verification against the system's CAs"),
        ]
        for (name, query, message) in refusals {
            let (refused, _) = try kiosk(name.replacingOccurrences(of: " ", with: "-"), query, ["--mic", "none", "--output", "null"])
            let status = try await refused.exitStatus(within: .seconds(30))
            print("FIGURE \(name): exit \(status); \(refused.stderr)")
            // Refused for good, with an alarm; the kiosk's silent lesson plays to its end (exit 3: a silent output).
            #expect(status == 3 && refused.stderr.contains(message), "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("roomRefused"), "\(name): \(refused.stderr)")
            for secret in [token, JanusCredentialTests.pin, JanusCredentialTests.tokenSecret] { #expect(!refused.stderr.contains(secret)) }
        }
    }

    /// A CA of the test's own and a certificate it signed for the server's IP address, written where
    /// janus-server.sh turns HTTPS on; returns the CA's PEM (what a kiosk is given as ca=).
    static func certificates(for address: String, in folder: URL, server: URL) throws -> URL {
        let ca = folder.appendingPathComponent("ca.pem"), caKey = folder.appendingPathComponent("ca.key")
        let request = folder.appendingPathComponent("server.csr"), extensions = folder.appendingPathComponent("server.ext")
        try "subjectAltName=IP:\(address)\n".write(to: extensions, atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.path, "-out", ca.path, "-days", "1", "-subj", "/CN=classroom-audio test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", server.appendingPathComponent("https_key.pem").path, "-out", request.path, "-subj", "/CN=janus under test"],
            ["x509", "-req", "-in", request.path, "-CA", ca.path, "-CAkey", caKey.path, "-CAcreateserial", "-days", "1",
             "-extfile", extensions.path, "-out", server.appendingPathComponent("https_cert.pem").path],
        ]
        for step in steps {
            let process = try Fixtures.start("/usr/bin/openssl", step)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("openssl \(step.joined(separator: " "))") }
        }
        return ca
    }
}
