import ClassroomMeasurement
import Foundation
import Testing

/// The room joined over WebRTC (ICE, DTLS-SRTP), in a room that takes no plain RTP: Janus in one
/// network namespace, the kiosks in another (libnice gathers no candidates on loopback).
@Suite("classroom-player: a Janus room over WebRTC", .serialized)
struct JanusWebRTCTests {
    @Test("two kiosks join room 2222 (allow_rtp_participants off) over WebRTC and hear each other; a plain-RTP join of it is refused, pointing at WebRTC",
          .enabled(if: NetworkNamespaces.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/janus")))
    func twoKiosksOverWebRTC() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let net = try NetworkNamespaces()
        defer { net.tearDown() }
        let lesson = folder.appendingPathComponent("silence.wav"), voice = folder.appendingPathComponent("a.wav"), other = folder.appendingPathComponent("b.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 12, volume: 0)
        // Speech in two bands, one per kiosk (the voice profile's noise suppression takes a steady tone away).
        let speechBand = 200...900, otherBand = 1500...3000
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words.", at: voice, band: speechBand)
        try Fixtures.speech("Thank you teacher. I have found page twelve, and the little red hen is planting the wheat all by herself.", at: other, band: otherBand)
        let timeline = folder.appendingPathComponent("mic.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let janus = try JanusInNamespace(net, folder: folder)
        defer { janus.stop() }
        #expect(await janus.started(), "janus: \(janus.log)")
        func kiosk(_ name: String, room: String, _ options: [String]) throws -> (PlayerProcess, URL) {
            let events = folder.appendingPathComponent("events-\(name).jsonl")
            let command = [PlayerProcess.executable.path, "play", lesson.path, "--room", room, "--events", events.path, "--no-stdin"] + options
            return (try PlayerProcess(net.exec(in: net.kiosks, command), in: folder, executable: URL(fileURLWithPath: "/usr/sbin/ip")), events)
        }
        let capture = try await PacketCapture(net, namespace: net.server, interface: net.serverInterface, seconds: 14, folder: folder)
        let api = "http://\(net.serverAddress):8088/janus?room=2222"
        let wavA = folder.appendingPathComponent("kiosk-a.wav"), wavB = folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try kiosk("a", room: api + "&display=kiosk-a", ["--mic", voice.path, "--script", timeline.path, "--output", "wav:\(wavA.path)"])
        let (b, eventsB) = try kiosk("b", room: api + "&display=kiosk-b", ["--mic", other.path, "--script", timeline.path, "--output", "wav:\(wavB.path)"])
        let (plain, _) = try kiosk("plain", room: "janus://\(net.serverAddress):8088/2222", ["--mic", "none", "--output", "null"])
        let statusA = try await a.exitStatus(within: .seconds(40)), statusB = try await b.exitStatus(within: .seconds(40))
        let plainStatus = try await plain.exitStatus(within: .seconds(20))

        let joinedA = Fixtures.events(eventsA, named: "room-joined").first?["t"] as? Double
        let joinedB = Fixtures.events(eventsB, named: "room-joined").first?["t"] as? Double
        let from = max(joinedA ?? 0, joinedB ?? 0) + 1.5
        let bHearsA = try Fixtures.bandLevel(wavB, from: from, to: 11.5, band: speechBand)
        let aHearsB = try Fixtures.bandLevel(wavA, from: from, to: 11.5, band: otherBand)
        let aHearsItself = try Fixtures.bandLevel(wavA, from: from, to: 11.5, band: speechBand)
        print("FIGURE WebRTC room: joined A \(joinedA.map { String(format: "%.2f", $0) } ?? "-") s, B \(joinedB.map { String(format: "%.2f", $0) } ?? "-") s; "
              + "B hears A \(String(format: "%.1f", bHearsA)) dBFS, A hears B \(String(format: "%.1f", aHearsB)) dBFS, A hears itself \(String(format: "%.1f", aHearsItself)) dBFS")
        #expect(joinedA != nil && joinedB != nil, "a: \(a.stderr)\nb: \(b.stderr)\njanus: \(janus.log.suffix(3000))")
        #expect(statusA == 0 && statusB == 0, "a: \(a.stderr)\nb: \(b.stderr)")
        #expect(bHearsA > -50, "B hears A: \(bHearsA) dBFS")
        #expect(aHearsB > -50, "A hears B: \(aHearsB) dBFS")
        #expect(aHearsItself < bHearsA - 20, "the room's mix leaves A's own voice out: \(aHearsItself) dBFS")
        let warning = Fixtures.events(eventsA, named: "room-warning").compactMap { $0["message"] as? String }
        #expect(warning.contains { $0.contains("encrypted (DTLS-SRTP)") && $0.contains("in the clear") }, "\(warning)")
        #expect(Fixtures.events(eventsA, named: "room-lost").isEmpty && Fixtures.events(eventsB, named: "room-silent").isEmpty)
        let states = Fixtures.events(eventsA, named: "room-connection").compactMap { $0["state"] as? String }
        #expect(states.starts(with: ["connecting", "connected"]), "the PeerConnection's states are said: \(states)")

        // What a listener on the path sees: ICE, the DTLS handshake, and RTP whose Opus payloads are encrypted
        // (their first byte spread over the byte's range; Opus in the clear repeats a few TOC bytes).
        await capture.finish()
        let wire = try capture.summary()
        print("FIGURE on the wire between the kiosks and Janus: \(wire)")
        #expect(wire.stun > 0 && wire.dtls > 0, "\(wire)")
        #expect(wire.rtp > 500 && wire.opusFirstBytes.count > 128, "\(wire)")

        #expect(plainStatus == 1, "a plain-RTP join of a room without plain RTP: \(plain.stderr)")
        #expect(plain.stderr.contains("does not take plain-RTP participants; join it over WebRTC"), "\(plain.stderr)")
    }

    @Test("a teacher in a real browser (headless Chromium, janus.js from Debian) and a kiosk in room 2222 over WebRTC: the kiosk hears the teacher's speech, and the page's AnalyserNode hears the kiosk's student once its microphone is on, the floor before",
          .enabled(if: NetworkNamespaces.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/janus") && BrowserTeacher.available))
    func browserTeacher() async throws {
        let began = Date()
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let net = try NetworkNamespaces()
        defer { net.tearDown() }
        let lesson = folder.appendingPathComponent("silence.wav"), voice = folder.appendingPathComponent("teacher.wav")
        let student = folder.appendingPathComponent("student.wav"), studentTwice = folder.appendingPathComponent("student2.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 12, volume: 0)
        // Speech in two bands, one per talker; the browser's fake microphone loops its WAV.
        let teacherBand = 200...900, studentBand = 1500...3000
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words.", at: voice, band: teacherBand)
        try Fixtures.speech("Thank you teacher. I have found page twelve, and the little red hen is planting the wheat all by herself.", at: student, band: studentBand)
        let twice = try Fixtures.start("/usr/bin/sox", [student.path, student.path, studentTwice.path])
        twice.waitUntilExit()
        // The student is silent until the kiosk has joined, then talks to the lesson's end.
        let micOn = 5.0
        let timeline = folder.appendingPathComponent("mic.json")
        try #"[{"at": 5.0, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let janus = try JanusInNamespace(net, folder: folder)
        defer { janus.stop() }
        #expect(await janus.started(), "janus: \(janus.log)")

        let teacher = try BrowserTeacher(net, in: net.kiosks, server: "http://\(net.serverAddress):8088/janus", room: 2222, display: "browser-teacher", microphone: voice, folder: folder)
        defer { teacher.stop() }
        let pageUp = await teacher.reached("webrtc-up", within: .seconds(20))
        let pageUpAfter = Date().timeIntervalSince(began)
        let kioskStarted = Date()
        let events = folder.appendingPathComponent("events-kiosk.jsonl"), wav = folder.appendingPathComponent("kiosk.wav")
        let command = [PlayerProcess.executable.path, "play", lesson.path, "--room", "http://\(net.serverAddress):8088/janus?room=2222&display=kiosk", "--events", events.path,
                       "--no-stdin", "--mic", studentTwice.path, "--script", timeline.path, "--output", "wav:\(wav.path)"]
        let kiosk = try PlayerProcess(net.exec(in: net.kiosks, command), in: folder, executable: URL(fileURLWithPath: "/usr/sbin/ip"))
        let status = try await kiosk.exitStatus(within: .seconds(40))
        teacher.stop()

        let joined = Fixtures.events(events, named: "room-joined").first?["t"] as? Double
        let kioskHearsTeacher = try Fixtures.bandLevel(wav, from: (joined ?? 0) + 1.5, to: 11.5, band: teacherBand)
        let kioskHearsItself = try Fixtures.bandLevel(wav, from: (joined ?? 0) + 1.5, to: 11.5, band: studentBand)
        // The page's levels (each over the analyser's last ~0.7 s) while the kiosk is in the room with its
        // microphone off, then while its student talks; none before the kiosk has joined.
        let before = joined.map { teacher.levels(from: kioskStarted.addingTimeInterval($0 + 0.7), to: kioskStarted.addingTimeInterval(micOn - 0.2)) } ?? []
        let talking = teacher.levels(from: kioskStarted.addingTimeInterval(micOn + 1.5), to: kioskStarted.addingTimeInterval(11.5))
        func median(_ levels: [Double]) -> Double { levels.isEmpty ? -.infinity : levels.sorted()[levels.count / 2] }
        func dB(_ value: Double) -> String { String(format: "%.1f", value) }
        print("FIGURE browser teacher: page up (webrtc) \(dB(pageUpAfter)) s into the test, "
              + "kiosk joined \(joined.map { String(format: "%.2f", $0) } ?? "-") s after its start; kiosk hears the teacher \(dB(kioskHearsTeacher)) dBFS (itself \(dB(kioskHearsItself)))")
        print("FIGURE browser teacher's analyser: kiosk's student talking median \(dB(median(talking))) dBFS (min \(dB(talking.min() ?? -.infinity)), \(talking.count) reports), "
              + "microphone off median \(dB(median(before))) dBFS (max \(dB(before.max() ?? -.infinity)), \(before.count) reports); run \(dB(Date().timeIntervalSince(began))) s")
        #expect(pageUp, "the page did not get WebRTC up: \(teacher.states)\nchromium: \(teacher.log)\njanus: \(janus.log.suffix(2000))")
        #expect(!teacher.states.contains("failed"), "chromium: \(teacher.log)")
        #expect(joined != nil && status == 0, "kiosk: \(kiosk.stderr)\njanus: \(janus.log.suffix(2000))")
        #expect(kioskHearsTeacher > -50, "the kiosk hears the browser teacher: \(kioskHearsTeacher) dBFS")
        #expect(kioskHearsItself < kioskHearsTeacher - 20, "the room's mix leaves the kiosk's own voice out: \(kioskHearsItself) dBFS")
        #expect(talking.count >= 6 && median(talking) > -50, "the page hears the kiosk's student: \(talking)")
        #expect(!before.isEmpty && (before.max() ?? 0) < -70, "the page hears nothing while the student's microphone is off: \(before)")
    }

    @Test("Janus killed mid-class and restarted: the WebRTC kiosk says room-lost, rejoins with a new PeerConnection and hears the other again",
          .enabled(if: NetworkNamespaces.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/janus")))
    func rejoinAfterServerLoss() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let net = try NetworkNamespaces()
        defer { net.tearDown() }
        let lesson = folder.appendingPathComponent("silence.wav"), voice = folder.appendingPathComponent("a.wav"), looped = folder.appendingPathComponent("a3.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 22, volume: 0)
        let band = 200...900
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words.", at: voice, band: band)
        let repeated = try Fixtures.start("/usr/bin/sox", [voice.path, voice.path, voice.path, voice.path, looped.path])
        repeated.waitUntilExit()
        let timeline = folder.appendingPathComponent("mic.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        var janus = try JanusInNamespace(net, folder: folder)
        defer { janus.stop() }
        #expect(await janus.started(), "janus: \(janus.log)")
        let api = "http://\(net.serverAddress):8088/janus?room=2222"
        func kiosk(_ name: String, _ options: [String]) throws -> (PlayerProcess, URL) {
            let events = folder.appendingPathComponent("events-\(name).jsonl")
            let command = [PlayerProcess.executable.path, "play", lesson.path, "--room", api + "&display=kiosk-\(name)", "--events", events.path, "--no-stdin"] + options
            return (try PlayerProcess(net.exec(in: net.kiosks, command), in: folder, executable: URL(fileURLWithPath: "/usr/sbin/ip")), events)
        }
        let wavB = folder.appendingPathComponent("kiosk-b.wav")
        let (a, _) = try kiosk("a", ["--mic", looped.path, "--script", timeline.path, "--output", "null"])
        let (b, eventsB) = try kiosk("b", ["--mic", "none", "--output", "wav:\(wavB.path)"])
        #expect(await waitUntil(timeout: .seconds(10)) { !Fixtures.events(eventsB, named: "room-joined").isEmpty })
        try await Task.sleep(for: .seconds(4))
        janus.stop()
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(eventsB, named: "room-lost").isEmpty })
        janus = try JanusInNamespace(net, folder: folder)
        #expect(await janus.started(), "janus: \(janus.log)")
        #expect(await waitUntil(timeout: .seconds(12)) { Fixtures.events(eventsB, named: "room-joined").count >= 2 })
        _ = try await a.exitStatus(within: .seconds(40))
        let statusB = try await b.exitStatus(within: .seconds(40))

        let joined = Fixtures.events(eventsB, named: "room-joined").compactMap { $0["t"] as? Double }
        let lostAt = Fixtures.events(eventsB, named: "room-lost").first?["t"] as? Double ?? 0
        let rejoinedAt = joined.dropFirst().first ?? 21
        let before = try Fixtures.bandLevel(wavB, from: (joined.first ?? 0) + 1.5, to: lostAt - 0.2, band: band)
        let after = try Fixtures.bandLevel(wavB, from: rejoinedAt + 1.5, to: 21, band: band)
        print("FIGURE WebRTC rejoin: B joined at \(joined) s, lost at \(String(format: "%.2f", lostAt)) s; B hears A \(String(format: "%.1f", before)) dBFS before, \(String(format: "%.1f", after)) dBFS after the rejoin")
        #expect(statusB == 0, "stderr: \(b.stderr)")
        #expect(joined.count >= 2 && rejoinedAt > lostAt, "\(joined), lost at \(lostAt)")
        #expect(before > -50 && after > -50, "before \(before), after \(after)")
    }

    @Test("HTTPS with the test's own CA, token_auth and a pin, in a room without plain RTP: two kiosks hear each other; a wrong token, a wrong pin and no ca= (the system's CAs) each end the start with exit 1 naming which",
          .enabled(if: NetworkNamespaces.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/janus")))
    func secureRoom() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let net = try NetworkNamespaces()
        defer { net.tearDown() }
        let janusFolder = folder.appendingPathComponent("janus"), kioskFolder = folder.appendingPathComponent("kiosk-secrets")
        try JanusCredentialTests.secretFile(janusFolder.appendingPathComponent("token_auth_secret"), JanusCredentialTests.tokenSecret)
        try JanusCredentialTests.secretFile(janusFolder.appendingPathComponent("room_pin"), JanusCredentialTests.pin)
        let ca = try Self.certificates(for: net.serverAddress, in: folder, server: janusFolder)
        let token = try JanusCredentialTests.token(secretIn: janusFolder.appendingPathComponent("token_auth_secret"))
        let files = [("token", token), ("wrong-token", token.replacingOccurrences(of: ":", with: ":AAAA")), ("pin", JanusCredentialTests.pin), ("wrong-pin", "rpin-wrong")]
        for (name, value) in files { try JanusCredentialTests.secretFile(kioskFolder.appendingPathComponent(name), value) }
        func secret(_ name: String) -> String { kioskFolder.appendingPathComponent(name).path }

        let lesson = folder.appendingPathComponent("silence.wav"), voice = folder.appendingPathComponent("a.wav"), other = folder.appendingPathComponent("b.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 12, volume: 0)
        let speechBand = 200...900, otherBand = 1500...3000
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words.", at: voice, band: speechBand)
        try Fixtures.speech("Thank you teacher. I have found page twelve, and the little red hen is planting the wheat all by herself.", at: other, band: otherBand)
        let timeline = folder.appendingPathComponent("mic.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let janus = try JanusInNamespace(net, folder: folder)
        defer { janus.stop() }
        #expect(await janus.started(), "janus: \(janus.log)")
        #expect(janus.log.contains("HTTPS webserver started"), "janus: \(janus.log.suffix(2000))")

        let base = "https://\(net.serverAddress):8088/janus?room=4444"
        func kiosk(_ name: String, _ query: String, _ options: [String]) throws -> (PlayerProcess, URL) {
            let events = folder.appendingPathComponent("events-\(name).jsonl")
            let command = [PlayerProcess.executable.path, "play", lesson.path, "--room", base + "&display=kiosk-\(name)" + query, "--events", events.path, "--no-stdin"] + options
            return (try PlayerProcess(net.exec(in: net.kiosks, command), in: folder, executable: URL(fileURLWithPath: "/usr/sbin/ip")), events)
        }
        let admitted = "&ca=\(ca.path)&token-file=\(secret("token"))&pin-file=\(secret("pin"))"
        let wavA = folder.appendingPathComponent("kiosk-a.wav"), wavB = folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try kiosk("a", admitted, ["--mic", voice.path, "--script", timeline.path, "--output", "wav:\(wavA.path)"])
        let (b, eventsB) = try kiosk("b", admitted, ["--mic", other.path, "--script", timeline.path, "--output", "wav:\(wavB.path)"])
        let statusA = try await a.exitStatus(within: .seconds(40)), statusB = try await b.exitStatus(within: .seconds(40))
        let joinedA = Fixtures.events(eventsA, named: "room-joined").first?["t"] as? Double
        let joinedB = Fixtures.events(eventsB, named: "room-joined").first?["t"] as? Double
        let from = max(joinedA ?? 0, joinedB ?? 0) + 1.5
        let bHearsA = try Fixtures.bandLevel(wavB, from: from, to: 11.5, band: speechBand)
        let aHearsB = try Fixtures.bandLevel(wavA, from: from, to: 11.5, band: otherBand)
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
            let status = try await refused.exitStatus(within: .seconds(20))
            print("FIGURE \(name): exit \(status); \(refused.stderr)")
            #expect(status == 1 && refused.stderr.contains(message), "\(name): \(refused.stderr)")
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
