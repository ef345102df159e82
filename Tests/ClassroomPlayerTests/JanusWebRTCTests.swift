import ClassroomMeasurement
import Foundation
import Testing

/// The room joined over WebRTC (ICE, DTLS-SRTP), in a room that takes no plain RTP: Janus in one
/// network namespace, the kiosks in another (libnice gathers no candidates on loopback).
@Suite("classroom-player: a Janus room over WebRTC", .serialized)
struct JanusWebRTCTests {
    @Test("two kiosks join room 2222 (allow_rtp_participants off) over WebRTC and hear each other, muted in the room when a microphone goes off; a plain-RTP join of it is refused, pointing at WebRTC",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func twoKiosksOverWebRTC() async throws {
        let rig = try WebRTCRoomRig()
        defer { rig.tearDown() }
        let janus = try await rig.startJanus()
        let timeline = try rig.microphoneOn(at: 0.2)
        // B's microphone goes off at 7 s: the session mutes B in the room (AudioBridge configure, over WebRTC as over plain RTP).
        let bTimeline = rig.folder.appendingPathComponent("mic-b.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}, {"at": 7.0, "do": "mic", "on": false}]"#.write(to: bTimeline, atomically: true, encoding: .utf8)
        let capture = try await PacketCapture(rig.net, namespace: rig.net.server, interface: rig.net.serverInterface, seconds: 14, folder: rig.folder)
        let api = rig.api(room: 2222)
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let (a, eventsA) = try rig.kiosk("a", room: api + "&display=kiosk-a", ["--mic", rig.teacher.path, "--script", timeline.path, "--output", "wav:\(wavA.path)",
                                                                               "--log-level", "info"])
        let (b, eventsB) = try rig.kiosk("b", room: api + "&display=kiosk-b", ["--mic", rig.student.path, "--script", bTimeline.path, "--output", "wav:\(wavB.path)"])
        let (plain, _) = try rig.kiosk("plain", room: "janus://\(rig.net.serverAddress):8088/2222", ["--mic", "none", "--output", "null"])
        try await Task.sleep(for: .seconds(4))
        let talking = try janus.participants(room: 2222)
        try await Task.sleep(for: .seconds(5))
        let muted = try janus.participants(room: 2222)
        print("FIGURE WebRTC room's participants: both microphones on \(talking); B's off \(muted)")
        #expect(talking == ["kiosk-a": false, "kiosk-b": false] && muted == ["kiosk-a": false, "kiosk-b": true], "talking \(talking), muted \(muted)")
        let statusA = try await a.exitStatus(within: .seconds(40)), statusB = try await b.exitStatus(within: .seconds(40))
        let plainStatus = try await plain.exitStatus(within: .seconds(20))

        let joinedA = Fixtures.events(eventsA, named: "room-joined").first?["t"] as? Double
        let joinedB = Fixtures.events(eventsB, named: "room-joined").first?["t"] as? Double
        let from = max(joinedA ?? 0, joinedB ?? 0) + 1.5
        let bHearsA = try Fixtures.bandLevel(wavB, from: from, to: 11.5, band: WebRTCRoomRig.teacherBand)
        let aHearsB = try Fixtures.bandLevel(wavA, from: from, to: 6.8, band: WebRTCRoomRig.studentBand)
        let aHearsItself = try Fixtures.bandLevel(wavA, from: from, to: 11.5, band: WebRTCRoomRig.teacherBand)
        print("FIGURE WebRTC room: joined A \(joinedA.map { String(format: "%.2f", $0) } ?? "-") s, B \(joinedB.map { String(format: "%.2f", $0) } ?? "-") s; "
              + "B hears A \(String(format: "%.1f", bHearsA)) dBFS, A hears B \(String(format: "%.1f", aHearsB)) dBFS, A hears itself \(String(format: "%.1f", aHearsItself)) dBFS")
        #expect(joinedA != nil && joinedB != nil, "a: \(a.stderr)\nb: \(b.stderr)\njanus: \(janus.log.suffix(3000))")
        #expect(statusA == 0 && statusB == 0, "a: \(a.stderr)\nb: \(b.stderr)")
        #expect(bHearsA > -50, "B hears A: \(bHearsA) dBFS")
        #expect(aHearsB > -50, "A hears B: \(aHearsB) dBFS")
        #expect(aHearsItself < bHearsA - 20, "the room's mix leaves A's own voice out: \(aHearsItself) dBFS")
        // What A hears passed the SSRC check under the DTLS-SRTP key first.
        #expect(a.stderr.contains("checked against the DTLS-SRTP key"), "\(a.stderr.suffix(2000))")
        #expect(!a.stderr.contains("someone on the network forges"), "no forged packet came, none is said: \(a.stderr.suffix(2000))")
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

        // Refused as configured, with an alarm: its silent lesson plays to the end (exit 3, a silent output).
        #expect(plainStatus == 3, "a plain-RTP join of a room without plain RTP: \(plain.stderr)")
        #expect(plain.stderr.contains("does not take plain-RTP participants; join it over WebRTC") && plain.stderr.contains("roomRefused"), "\(plain.stderr)")
    }

    @Test("Janus killed mid-class and restarted: the WebRTC kiosk says room-lost, rejoins with a new PeerConnection and hears the other again",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func rejoinAfterServerLoss() async throws {
        let rig = try WebRTCRoomRig(lessonSeconds: 22)
        defer { rig.tearDown() }
        try await rig.startJanus()
        let talker = try rig.repeated(rig.teacher, times: 4), timeline = try rig.microphoneOn(at: 0.2)
        let api = rig.api(room: 2222)
        let wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let (a, _) = try rig.kiosk("a", room: api + "&display=kiosk-a", ["--mic", talker.path, "--script", timeline.path, "--output", "null"])
        let (b, eventsB) = try rig.kiosk("b", room: api + "&display=kiosk-b", ["--mic", "none", "--output", "wav:\(wavB.path)"])
        #expect(await waitUntil(timeout: .seconds(10)) { !Fixtures.events(eventsB, named: "room-joined").isEmpty })
        try await Task.sleep(for: .seconds(4))
        rig.janus?.stop()
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(eventsB, named: "room-lost").isEmpty })
        try await rig.startJanus()
        #expect(await waitUntil(timeout: .seconds(12)) { Fixtures.events(eventsB, named: "room-joined").count >= 2 })
        _ = try await a.exitStatus(within: .seconds(40))
        let statusB = try await b.exitStatus(within: .seconds(40))

        let joined = Fixtures.events(eventsB, named: "room-joined").compactMap { $0["t"] as? Double }
        let lostAt = Fixtures.events(eventsB, named: "room-lost").first?["t"] as? Double ?? 0
        let rejoinedAt = joined.dropFirst().first ?? 21
        let before = try Fixtures.bandLevel(wavB, from: (joined.first ?? 0) + 1.5, to: lostAt - 0.2, band: WebRTCRoomRig.teacherBand)
        let after = try Fixtures.bandLevel(wavB, from: rejoinedAt + 1.5, to: 21, band: WebRTCRoomRig.teacherBand)
        print("FIGURE WebRTC rejoin: B joined at \(joined) s, lost at \(String(format: "%.2f", lostAt)) s; B hears A \(String(format: "%.1f", before)) dBFS before, \(String(format: "%.1f", after)) dBFS after the rejoin")
        #expect(statusB == 0, "stderr: \(b.stderr)")
        #expect(joined.count >= 2 && rejoinedAt > lostAt, "\(joined), lost at \(lostAt)")
        #expect(before > -50 && after > -50, "before \(before), after \(after)")
    }

    @Test("ICE that cannot complete (UDP to Janus dropped, its HTTP API still up) fails the PeerConnection: room-lost, and the room rejoins once the path is back and hears the other",
          .enabled(if: WebRTCRoomRig.available && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "needs root, iproute2, nftables and a Janus (scripts/janus-server.sh --check)"))
    func rejoinAfterICEFailure() async throws {
        let rig = try WebRTCRoomRig(lessonSeconds: 24)
        defer { rig.tearDown() }
        try await rig.startJanus()
        try rig.janusTakesUDP(false)
        let talker = try rig.repeated(rig.teacher, times: 4), timeline = try rig.microphoneOn(at: 0.2)
        let api = rig.api(room: 2222)
        let wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let startedA = ContinuousClock.now
        let (a, eventsA) = try rig.kiosk("a", room: api + "&display=kiosk-a", ["--mic", talker.path, "--script", timeline.path, "--output", "null"])
        let (b, eventsB) = try rig.kiosk("b", room: api + "&display=kiosk-b", ["--mic", "none", "--output", "wav:\(wavB.path)"])
        let failed = await waitUntil(timeout: .seconds(15)) { !Fixtures.events(eventsA, named: "room-lost").isEmpty && !Fixtures.events(eventsB, named: "room-lost").isEmpty }
        try rig.janusTakesUDP(true)
        let unblockedAt = (ContinuousClock.now - startedA) / .seconds(1)
        let rejoined = await waitUntil(timeout: .seconds(15)) {
            Fixtures.events(eventsA, named: "room-connection").contains { $0["state"] as? String == "connected" }
                && Fixtures.events(eventsB, named: "room-connection").contains { $0["state"] as? String == "connected" }
        }
        _ = try await a.exitStatus(within: .seconds(40))
        let statusB = try await b.exitStatus(within: .seconds(40))

        let lost = Fixtures.events(eventsB, named: "room-lost")
        let states = Fixtures.events(eventsB, named: "room-connection").compactMap { $0["state"] as? String }
        let connectedAt = Fixtures.events(eventsB, named: "room-connection").first { $0["state"] as? String == "connected" }?["t"] as? Double ?? 23
        let heard = try Fixtures.bandLevel(wavB, from: connectedAt + 1.5, to: 23.5, band: WebRTCRoomRig.teacherBand)

        #expect(failed, "both kiosks lose the room when ICE fails: \(Fixtures.events(eventsB, named: "room-connection"))")
        #expect((lost.first?["message"] as? String)?.contains("the WebRTC connection failed") == true, "\(lost)")
        // A kiosk that once never came back (fresh-clone CI) was waiting out its lost session's long poll,
        // which Janus answers 30 s after the destroy (JanusRoomLossTests); both kiosks' timelines are in the FIGURE.
        // A kiosk's room events in time order: "9.15 room-connection failed", "9.152 room-lost ", …
        func roomEvents(_ events: URL) -> [String] {
            ["room-connection", "room-lost", "room-joined"].flatMap { Fixtures.events(events, named: $0) }
                .map { ($0["t"] as? Double ?? 0, "\($0["event"] ?? "-") \($0["state"] ?? "")") }.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1)" }
        }
        let (timelineA, timelineB) = (roomEvents(eventsA), roomEvents(eventsB))
        print("FIGURE WebRTC ICE failure: B lost the room at \(lost.first?["t"] ?? "-") s (\(lost.first?["message"] ?? "-")); states \(states); connected at \(String(format: "%.2f", connectedAt)) s, then hears A \(String(format: "%.1f", heard)) dBFS; "
              + "B: \(timelineB); UDP back at \(String(format: "%.1f", unblockedAt)) s of A's run; A: \(timelineA)")
        #expect(states.contains("failed") && rejoined, "B: \(timelineB); A: \(timelineA); A's stderr: \(a.stderr)")
        #expect(statusB == 0, "stderr: \(b.stderr)")
        #expect(heard > -50, "B hears A after the rejoin: \(heard) dBFS")
    }
}
