import ClassroomMeasurement
import Foundation
import Testing

/// A class in a Janus VideoRoom room (`mode=sfu`): Janus forwards each kiosk's voice and every kiosk
/// mixes its classmates itself, one engine input each. Janus in one network namespace, the kiosks
/// in another (libnice gathers no candidates on loopback).
@Suite("classroom-player: a Janus VideoRoom class, mixed on each kiosk", .serialized)
struct JanusSFURoomTests {
    @Test("three kiosks in VideoRoom room 5555: each hears the others and not itself, each classmate an input of its own; one that leaves is out of the mix within 2 s and heard again within 2 s of rejoining; a muted one is silent and stays in the mix; only DTLS and SRTP cross the wire",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func threeKiosksMixEachOther() async throws {
        let rig = try WebRTCRoomRig(lessonSeconds: 24)
        defer { rig.tearDown() }
        try await rig.startJanus()
        let capture = try await PacketCapture(rig.net, namespace: rig.net.server, interface: rig.net.serverInterface, seconds: 26, folder: rig.folder)
        let api = rig.api(room: 5555) + "&mode=sfu"
        let teacher = try rig.repeated(rig.teacher, times: 4), student = try rig.repeated(rig.student, times: 4)
        let timeline = try rig.microphoneOn(at: 0.2), short = try rig.silence(seconds: 8)
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavB = rig.folder.appendingPathComponent("kiosk-b.wav")
        let wavC = rig.folder.appendingPathComponent("kiosk-c.wav")
        let startedA = ContinuousClock.now
        let (a, eventsA) = try rig.kiosk("a", room: api + "&display=kiosk-a", ["--mic", teacher.path, "--script", timeline.path, "--output", "wav:\(wavA.path)", "--log-level", "info"])
        let (c, eventsC) = try rig.kiosk("c", room: api + "&display=kiosk-c", ["--mic", "none", "--output", "wav:\(wavC.path)"])
        // B talks for 8 s and leaves; a second B joins 3 s later under the same name, its microphone off (muted in the room) from 5 s.
        let mutes = rig.folder.appendingPathComponent("mic-b2.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}, {"at": 5.0, "do": "mic", "on": false}]"#.write(to: mutes, atomically: true, encoding: .utf8)
        let startedB = ContinuousClock.now
        let (b, eventsB) = try rig.kiosk("b", room: api + "&display=kiosk-b", lesson: short, ["--mic", student.path, "--script", timeline.path, "--output", "wav:\(wavB.path)"])
        let statusB = try await b.exitStatus(within: .seconds(20))
        try await Task.sleep(for: .seconds(3))
        let startedB2 = ContinuousClock.now
        let (b2, eventsB2) = try rig.kiosk("b2", room: api + "&display=kiosk-b", lesson: short, ["--mic", student.path, "--script", mutes.path, "--output", "null"])
        let statusB2 = try await b2.exitStatus(within: .seconds(20))
        let statusA = try await a.exitStatus(within: .seconds(30)), statusC = try await c.exitStatus(within: .seconds(30))

        // Each kiosk's event times are its own run's: B's and B2's are put on A's clock by when each started.
        func onA(_ t: Double?, startedAt instant: ContinuousClock.Instant) -> Double? { t.map { $0 + (instant - startedA) / .seconds(1) } }
        let joined = { (events: URL) in Fixtures.events(events, named: "room-joined").first?["t"] as? Double }
        let classmateEvents = { (events: URL, name: String, display: String) in
            Fixtures.events(events, named: name).filter { $0["display"] as? String == display }.compactMap { $0["t"] as? Double }
        }
        let bJoined = onA(joined(eventsB), startedAt: startedB), bLeft = onA(Fixtures.events(eventsB, named: "room-left").first?["t"] as? Double, startedAt: startedB)
        let b2Joined = onA(joined(eventsB2), startedAt: startedB2), b2Left = onA(Fixtures.events(eventsB2, named: "room-left").first?["t"] as? Double, startedAt: startedB2)
        let b2Muted = onA(Fixtures.events(eventsB2, named: "microphone").first { $0["connected"] as? Bool == false }?["t"] as? Double, startedAt: startedB2)
        let bArrivalsAtA = classmateEvents(eventsA, "participant-joined", "kiosk-b"), bDeparturesAtA = classmateEvents(eventsA, "participant-left", "kiosk-b")
        let inputsAtA = Fixtures.events(eventsA, named: "participant-joined").compactMap { $0["input"] as? String }
        let leftAtA = bDeparturesAtA.first, backAtA = bArrivalsAtA.dropFirst().first

        let aJoined = joined(eventsA) ?? 0
        let cJoined = joined(eventsC) ?? 0
        let bFrom = max(bJoined ?? 0, aJoined) + 1.5
        let aHearsB = try Fixtures.bandLevel(wavA, from: bFrom, to: (leftAtA ?? 8) - 0.3, band: WebRTCRoomRig.studentBand)
        let aHearsNoB = try Fixtures.bandLevel(wavA, from: (leftAtA ?? 8) + 0.3, to: (backAtA ?? 11) - 0.3, band: WebRTCRoomRig.studentBand)
        let aHearsB2 = try Fixtures.bandLevel(wavA, from: (b2Joined ?? 11) + 2, to: (b2Muted ?? 16) - 0.3, band: WebRTCRoomRig.studentBand)
        let aHearsMutedB2 = try Fixtures.bandLevel(wavA, from: (b2Muted ?? 16) + 0.5, to: (b2Left ?? 19) - 0.3, band: WebRTCRoomRig.studentBand)
        let aHearsItself = try Fixtures.bandLevel(wavA, from: aJoined + 1.5, to: 22, band: WebRTCRoomRig.teacherBand)
        let bHearsA = try Fixtures.bandLevel(wavB, from: (joined(eventsB) ?? 0) + 1.5, to: 7.5, band: WebRTCRoomRig.teacherBand)
        let bHearsItself = try Fixtures.bandLevel(wavB, from: (joined(eventsB) ?? 0) + 1.5, to: 7.5, band: WebRTCRoomRig.studentBand)
        let cHearsA = try Fixtures.bandLevel(wavC, from: cJoined + 1.5, to: 22, band: WebRTCRoomRig.teacherBand)
        let cHearsB = try Fixtures.bandLevel(wavC, from: cJoined + 1.5, to: 7, band: WebRTCRoomRig.studentBand)
        let f = { (value: Double?) in value.map { String(format: "%.2f", $0) } ?? "-" }
        print("FIGURE VideoRoom class (A's clock): B joined \(f(bJoined)) s, left \(f(bLeft)) s, out of A's mix at \(f(leftAtA)) s; B2 joined \(f(b2Joined)) s, in A's mix at \(f(backAtA)) s, muted \(f(b2Muted)) s, left \(f(b2Left)) s; "
              + "A hears B \(f(aHearsB)), none \(f(aHearsNoB)), B2 \(f(aHearsB2)), B2 muted \(f(aHearsMutedB2)), itself \(f(aHearsItself)); B hears A \(f(bHearsA)), itself \(f(bHearsItself)); C hears A \(f(cHearsA)), B \(f(cHearsB)) dBFS; A's inputs \(inputsAtA)")

        #expect(statusA == 0 && statusB == 0 && statusB2 == 0 && statusC == 0, "a: \(a.stderr.suffix(3000))\nb: \(b.stderr.suffix(2000))\nc: \(c.stderr.suffix(2000))\njanus: \(rig.janus?.log.suffix(3000) ?? "")")
        #expect(Set(inputsAtA) == ["rtc-room-kiosk-b", "rtc-room-kiosk-c"] && bArrivalsAtA.count == 2, "each classmate is an input of its own: \(inputsAtA)")
        #expect(aHearsB > -50 && bHearsA > -50 && cHearsA > -50 && cHearsB > -50, "every kiosk hears every other")
        #expect(aHearsItself < aHearsB - 20 && bHearsItself < bHearsA - 20, "nobody hears themselves")
        if let bLeft, let leftAtA { #expect(leftAtA - bLeft < 2, "B left at \(bLeft) s, out of A's mix at \(leftAtA) s") } else { Issue.record("B's leave was not seen: \(bDeparturesAtA)") }
        #expect(aHearsNoB < -70, "a classmate who left is out of the mix: \(aHearsNoB) dBFS")
        if let b2Joined, let backAtA { #expect(backAtA - b2Joined < 2, "B2 joined at \(b2Joined) s, in A's mix at \(backAtA) s") } else { Issue.record("B's return was not seen: \(bArrivalsAtA)") }
        #expect(aHearsB2 > -50, "B is heard again within 2 s of rejoining: \(aHearsB2) dBFS")
        #expect(aHearsMutedB2 < aHearsB2 - 30, "a muted classmate is not heard: \(aHearsMutedB2) dBFS, \(aHearsB2) before")
        // A talks throughout (its packets' audio levels, RFC 6464, tell the room); C's microphone is off.
        let talkingAtC = Fixtures.events(eventsC, named: "participant-talking").map { "\($0["display"] as? String ?? "-") \(($0["talking"] as? Bool).map(String.init) ?? "-") at \($0["t"] as? Double ?? -1)" }
        print("FIGURE talking, as C heard it from the room: \(talkingAtC)")
        #expect(talkingAtC.contains { $0.hasPrefix("kiosk-a true") }, "the room says A talks: \(talkingAtC)")
        #expect(!Fixtures.events(eventsA, named: "participant-talking").contains { $0["display"] as? String == "kiosk-c" && $0["talking"] as? Bool == true },
                "C, without a microphone, is never said to talk")
        #expect(Fixtures.events(eventsA, named: "alarm").isEmpty && Fixtures.events(eventsC, named: "alarm").isEmpty,
                "no alarm while classmates come, go and mute: \(Fixtures.events(eventsA, named: "alarm")) \(Fixtures.events(eventsC, named: "alarm"))")

        await capture.finish()
        let wire = try capture.summary()
        print("FIGURE on the wire between the kiosks and the VideoRoom: \(wire)")
        #expect(wire.stun > 0 && wire.dtls > 0, "\(wire)")
        #expect(wire.rtp > 1000 && wire.opusFirstBytes.count > 128, "what crosses is SRTP: \(wire)")
    }

    @Test("Janus killed mid-class and restarted: both kiosks say room-lost, their classmates leave the mix, and after the rejoin each has the other as an input again and hears them",
          .enabled(if: WebRTCRoomRig.available, "needs root, iproute2 and a Janus (scripts/janus-server.sh --check)"))
    func classBackAfterServerLoss() async throws {
        let rig = try WebRTCRoomRig(lessonSeconds: 24)
        defer { rig.tearDown() }
        try await rig.startJanus()
        let api = rig.api(room: 5555) + "&mode=sfu"
        let teacher = try rig.repeated(rig.teacher, times: 4), student = try rig.repeated(rig.student, times: 4)
        let timeline = try rig.microphoneOn(at: 0.2)
        let wavA = rig.folder.appendingPathComponent("kiosk-a.wav"), wavC = rig.folder.appendingPathComponent("kiosk-c.wav")
        let (a, eventsA) = try rig.kiosk("a", room: api + "&display=kiosk-a", ["--mic", teacher.path, "--script", timeline.path, "--output", "wav:\(wavA.path)"])
        let (c, eventsC) = try rig.kiosk("c", room: api + "&display=kiosk-c", ["--mic", student.path, "--script", timeline.path, "--output", "wav:\(wavC.path)"])
        let arrivals = { (events: URL) in Fixtures.events(events, named: "participant-joined") }
        #expect(await waitUntil(timeout: .seconds(10)) { !arrivals(eventsA).isEmpty && !arrivals(eventsC).isEmpty })
        try await Task.sleep(for: .seconds(4))
        rig.janus?.stop()
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(eventsA, named: "room-lost").isEmpty && !Fixtures.events(eventsC, named: "room-lost").isEmpty })
        try await rig.startJanus()
        #expect(await waitUntil(timeout: .seconds(15)) { arrivals(eventsA).count >= 2 && arrivals(eventsC).count >= 2 })
        let statusA = try await a.exitStatus(within: .seconds(40)), statusC = try await c.exitStatus(within: .seconds(40))

        let times = { (events: URL, name: String) in Fixtures.events(events, named: name).compactMap { $0["t"] as? Double } }
        let lostA = times(eventsA, "room-lost").first ?? 0, lostC = times(eventsC, "room-lost").first ?? 0
        let cAtA = times(eventsA, "participant-joined"), aAtC = times(eventsC, "participant-joined")
        let leftA = times(eventsA, "participant-left"), leftC = times(eventsC, "participant-left")
        let backA = cAtA.dropFirst().first ?? 22, backC = aAtC.dropFirst().first ?? 22
        let aHearsC = try Fixtures.bandLevel(wavA, from: (cAtA.first ?? 0) + 1, to: lostA - 0.2, band: WebRTCRoomRig.studentBand)
        let aHearsCAfter = try Fixtures.bandLevel(wavA, from: backA + 1, to: 22.5, band: WebRTCRoomRig.studentBand)
        let cHearsA = try Fixtures.bandLevel(wavC, from: (aAtC.first ?? 0) + 1, to: lostC - 0.2, band: WebRTCRoomRig.teacherBand)
        let cHearsAAfter = try Fixtures.bandLevel(wavC, from: backC + 1, to: 22.5, band: WebRTCRoomRig.teacherBand)
        let inputs = Fixtures.events(eventsA, named: "participant-joined").compactMap { $0["input"] as? String }
        let f = { (value: Double) in String(format: "%.2f", value) }
        print("FIGURE VideoRoom class, Janus restarted: A lost the room at \(f(lostA)) s, C left A's mix at \(leftA), back at \(f(backA)) s; C lost at \(f(lostC)) s, A left C's mix at \(leftC), back at \(f(backC)) s; "
              + "A hears C \(f(aHearsC)) before, \(f(aHearsCAfter)) after; C hears A \(f(cHearsA)) before, \(f(cHearsAAfter)) after (dBFS); A's inputs \(inputs)")
        #expect(statusA == 0 && statusC == 0, "a: \(a.stderr.suffix(3000))\nc: \(c.stderr.suffix(2000))")
        // Once as the room is lost, once more as each leaves at its end.
        #expect(leftA.filter { $0 < backA }.count == 1 && leftC.filter { $0 < backC }.count == 1 && (leftA.first ?? 99) <= lostA + 0.5 && (leftC.first ?? 99) <= lostC + 0.5,
                "a lost room takes its classmates out of the mix: A \(leftA), C \(leftC)")
        #expect(inputs == ["rtc-room-kiosk-c", "rtc-room-kiosk-c"], "the classmate comes back in an input of the same name: \(inputs)")
        #expect(aHearsC > -50 && aHearsCAfter > -50 && cHearsA > -50 && cHearsAAfter > -50, "each hears the other before and after the restart")
    }
}
