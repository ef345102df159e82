import Foundation
import Testing

@Suite("classroom-player: a class of kiosks in a Janus AudioBridge room", .serialized,
       .enabled(if: JanusServer.available, "no Janus to run here: scripts/janus-server.sh --check says why"))
struct JanusTests {
    @Test("a room that cannot be joined as configured is refused with an alarm and says what to change, while the lesson plays to its end; a server that is not Janus is retried", arguments: [
        ("/9999", "has no AudioBridge room 9999"),
        ("/3333?pin=wrong", "refused the pin given as pin= as wrong"),
        ("/2222", "set allow_rtp_participants = true"),
        ("NOT-JANUS/1234", "it is not a Janus server"),
    ])
    func refusedRooms(path: String, message: String) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2, volume: 0.05)
        let janus = try JanusServer(in: folder)
        try await janus.start()
        defer { janus.kill() }
        var uri = "janus://127.0.0.1:\(janus.port)\(path)"
        var other: Process?
        if path.hasPrefix("NOT-JANUS") {
            // An HTTP server that is not Janus: it refuses the POST.
            let port = try Fixtures.freeTCPPort()
            other = try Fixtures.start("/usr/bin/python3", ["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", folder.path])
            _ = await waitUntil(timeout: .seconds(5)) { (try? Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/")!)) != nil }
            uri = "janus://127.0.0.1:\(port)/1234"
        }
        defer { Fixtures.stop(other) }
        let events = folder.appendingPathComponent("events.jsonl")
        let result = try await PlayerProcess.run(["play", lesson.path, "--room", uri, "--mic", "none", "--output", "null", "--events", events.path, "--no-stdin"], in: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        let refusedForGood = !path.hasPrefix("NOT-JANUS")
        #expect(Fixtures.events(events, named: "alarm").filter { $0["code"] as? String == "roomRefused" }.count == (refusedForGood ? 1 : 0))
        #expect(Fixtures.events(events, named: refusedForGood ? "room-refused" : "room-lost").count >= 1, "stderr: \(result.stderr)")
    }

    @Test("SIGTERM leaves the room: the kiosk is gone from Janus's participant list when the process has exited")
    func leavesOnSignal() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 20, volume: 0.05)
        let janus = try JanusServer(in: folder)
        try await janus.start()
        defer { janus.kill() }
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--room", "janus://127.0.0.1:\(janus.port)/1234?display=leaver", "--mic", "none",
                                        "--output", "null", "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "room-joined").isEmpty }, "stderr: \(player.stderr)")
        let before = try janus.participants(room: 1234)
        #expect(before["leaver"] == true, "joined muted (no microphone): \(before)")
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(10)) == 143)
        let after = try janus.participants(room: 1234)
        #expect(after["leaver"] == nil, "\(after)")
        #expect(!Fixtures.events(events, named: "room-left").isEmpty)
    }

    @Test("two kiosks and an RTP sender in one room: each kiosk hears the others and not itself; a muted kiosk is muted in the room and gone from the mix; Janus killed and restarted gives room-lost, then room-joined and audio again")
    func classroom() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 24, volume: 0)
        let low = 200...900, high = 2_000...3_600, tone = 1_440...1_560
        let voiceA = folder.appendingPathComponent("a.wav"), voiceB = folder.appendingPathComponent("b.wav")
        let story = "Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words with your finger."
        try Fixtures.speech(story + " " + story, at: voiceA, band: low)
        try Fixtures.speech("Hello teacher. I have a question about the homework for tomorrow. Can you explain the second exercise again please? " + story, at: voiceB, band: high)
        let timelineA = folder.appendingPathComponent("a.json"), timelineB = folder.appendingPathComponent("b.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timelineA, atomically: true, encoding: .utf8)
        try #"[{"at": 0.2, "do": "mic", "on": true}, {"at": 6.0, "do": "mic", "on": false}]"#.write(to: timelineB, atomically: true, encoding: .utf8)
        let janus = try JanusServer(in: folder)
        try await janus.start()
        defer { janus.kill() }
        // Each kiosk also keeps its uplink: what it sent up, to tell a voice lost on the way from one never sent.
        func kiosk(_ name: String, voice: URL, timeline: URL) throws -> (PlayerProcess, URL, URL, URL) {
            let wav = folder.appendingPathComponent("kiosk-\(name).wav"), events = folder.appendingPathComponent("events-\(name).jsonl")
            let uplink = folder.appendingPathComponent("uplink-\(name).wav")
            let player = try PlayerProcess(["play", lesson.path, "--room", "janus://127.0.0.1:\(janus.port)/1234?display=kiosk-\(name)", "--mic", voice.path,
                                            "--script", timeline.path, "--output", "wav:\(wav.path)", "--uplink", "wav:\(uplink.path)",
                                            "--events", events.path, "--no-stdin"], in: folder)
            return (player, wav, events, uplink)
        }
        let (a, wavA, eventsA, uplinkA) = try kiosk("a", voice: voiceA, timeline: timelineA)
        let (b, wavB, eventsB, uplinkB) = try kiosk("b", voice: voiceB, timeline: timelineB)
        // Each kiosk's "t" counts from its own start, and the two start one after the other (B
        // seconds after A under load, seen once): note when each started, to place every window
        // on each kiosk's own timeline.
        var started: [String: ContinuousClock.Instant] = [:]
        func noteStarts() {
            for (name, events) in [("a", eventsA), ("b", eventsB)] where started[name] == nil && !Fixtures.events(events, named: "started").isEmpty {
                started[name] = .now
            }
        }
        #expect(await waitUntil(timeout: .seconds(15)) {
            noteStarts()
            return started.count == 2 && !Fixtures.events(eventsA, named: "room-joined").isEmpty && !Fixtures.events(eventsB, named: "room-joined").isEmpty
        }, "a: \(a.stderr) b: \(b.stderr)")
        let startedA = try #require(started["a"]), startedB = try #require(started["b"])
        func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        /// B's timeline on A's: B's second 0 is A's second `bOnA`.
        let bOnA = seconds(startedB - startedA)
        // A third participant: gst-launch-1.0 sending a 1.5 kHz Opus tone from the port it joined with.
        func toneSender() async throws -> Process {
            let receive = try Fixtures.freeUDPPort()
            let janusPort = try await janus.joinRTP(room: 1234, display: "tone", port: receive)
            return try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "audiotestsrc", "is-live=true", "wave=sine", "freq=1500", "volume=0.1", "!",
                                                                  "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "!", "rtpopuspay", "pt=111", "!",
                                                                  "udpsink", "host=127.0.0.1", "port=\(janusPort)", "bind-address=127.0.0.1", "bind-port=\(receive)"])
        }
        var sender = try await toneSender()
        defer { Fixtures.stop(sender) }
        let toneOnA = seconds(.now - startedA), toneOnB = seconds(.now - startedB)
        try await Task.sleep(for: .seconds(3))
        let talking = try janus.participants(room: 1234)
        print("FIGURE room while both microphones are on: \(talking)")
        #expect(talking["kiosk-b"] == false && talking["kiosk-a"] == false, "\(talking)")
        try await Task.sleep(for: .seconds(5))
        let muted = try janus.participants(room: 1234)
        print("FIGURE room after B's microphone went off: \(muted)")
        #expect(muted["kiosk-b"] == true && muted["kiosk-a"] == false, "\(muted)")

        // The server dies mid-class and comes back.
        janus.kill()
        Fixtures.stop(sender)
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(eventsA, named: "room-lost").isEmpty })
        try await Task.sleep(for: .seconds(1))
        try await janus.start()
        #expect(await waitUntil(timeout: .seconds(12)) { Fixtures.events(eventsA, named: "room-joined").count >= 2 && Fixtures.events(eventsB, named: "room-joined").count >= 2 })
        sender = try await toneSender()
        #expect(try await a.exitStatus(within: .seconds(40)) == 0, "stderr: \(a.stderr)")
        #expect(try await b.exitStatus(within: .seconds(40)) == 0, "stderr: \(b.stderr)")

        let lostAt = Fixtures.events(eventsA, named: "room-lost").first?["t"] as? Double ?? 0
        // B's microphone is on from its 0.2 s to its 6.0 s; A's from its 0.2 s on.
        let bTalks = (bOnA + 0.7)...(min(bOnA + 6.0, lostAt) - 0.5), aTalks = max(0.7, 0.7 - bOnA)...5.5
        let bSilent = (bOnA + 7.0)...(lostAt - 0.5)
        print("FIGURE timelines: B started \(String(format: "%.2f", bOnA)) s after A; B talks at \(bTalks) s of A's output, A at \(aTalks) s of B's, the tone from \(toneOnA) s of A's")
        try #require(bTalks.upperBound > bTalks.lowerBound + 1 && bSilent.upperBound > bSilent.lowerBound + 0.5, "A and B started too far apart to compare")
        let rejoinedAt = Fixtures.events(eventsA, named: "room-joined").dropFirst().first?["t"] as? Double ?? 0
        let alarm = Fixtures.events(eventsA, named: "alarm").first { $0["number"] as? Int == 1025 }
        print("FIGURE room lost at \(lostAt) s, rejoined at \(rejoinedAt) s; 1025 on \(alarm?["owner"] ?? "-") at \(alarm?["t"] ?? "-") s; A left: \(Fixtures.events(eventsA, named: "room-left").count)")
        #expect(alarm?["owner"] as? String == "rtc-room")
        #expect(!Fixtures.events(eventsA, named: "room-left").isEmpty && !Fixtures.events(eventsB, named: "room-left").isEmpty)
        // Whoever joined first is in A's room-joined list; whoever came later, in a room-participant event.
        let participants = Fixtures.events(eventsA, named: "room-joined").flatMap { ($0["participants"] as? [[String: Any]]) ?? [] }.compactMap { $0["display"] as? String }
            + Fixtures.events(eventsA, named: "room-participant").compactMap { ($0["participant"] as? [String: Any])?["display"] as? String }
        #expect(participants.contains("kiosk-b") && participants.contains("tone"), "\(participants)")

        func level(_ wav: URL, _ band: ClosedRange<Int>, _ from: Double, _ to: Double) throws -> Double { try Fixtures.bandLevel(wav, from: from, to: to, band: band) }
        let heard = [
            "A hears B": try level(wavA, high, bTalks.lowerBound, bTalks.upperBound), "B hears A": try level(wavB, low, aTalks.lowerBound, aTalks.upperBound),
            "A hears the tone": try level(wavA, tone, toneOnA + 1, lostAt - 0.5), "B hears the tone": try level(wavB, tone, toneOnB + 1, toneOnB + 3.5),
            // Medians of 100 ms windows: a click from a late packet is not a voice coming back.
            "A, its own voice": try Fixtures.medianBandLevel(wavA, from: bTalks.lowerBound, to: bTalks.upperBound, band: low),
            "B, its own voice": try Fixtures.medianBandLevel(wavB, from: aTalks.lowerBound, to: aTalks.upperBound, band: high),
            "A hears B (median)": try Fixtures.medianBandLevel(wavA, from: bTalks.lowerBound, to: bTalks.upperBound, band: high),
            "B hears A (median)": try Fixtures.medianBandLevel(wavB, from: aTalks.lowerBound, to: aTalks.upperBound, band: low),
            "A hears B after B's mic went off": try level(wavA, high, bSilent.lowerBound, bSilent.upperBound),
            "A hears the tone after the rejoin": try level(wavA, tone, rejoinedAt + 1.5, rejoinedAt + 4),
            "A sent": try level(uplinkA, low, 0.7, 5.5), "B sent": try level(uplinkB, high, 0.7, 5.5),
        ]
        print("FIGURE levels (dBFS): " + heard.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: "; "))
        for key in ["A sent", "B sent", "A hears B", "B hears A", "A hears the tone", "B hears the tone", "A hears the tone after the rejoin"] {
            #expect((heard[key] ?? -200) > -50, "\(key): \(heard[key] ?? -200) dBFS")
        }
        #expect((heard["A, its own voice"] ?? 0) < (heard["A hears B (median)"] ?? 0) - 30)
        #expect((heard["B, its own voice"] ?? 0) < (heard["B hears A (median)"] ?? 0) - 30)
        // The tone's Opus noise lies around -65 dB in B's band; B itself is gone. 20 dB, not 25: B's own
        // canceller sometimes holds its voice back while A and the tone play (B heard at -39.9 dB
        // instead of -34 in one fresh-clone run), and 25 dB under that fell into the tone's noise (-64.6).
        #expect((heard["A hears B after B's mic went off"] ?? 0) < min(-55, (heard["A hears B"] ?? 0) - 20))
    }
}
