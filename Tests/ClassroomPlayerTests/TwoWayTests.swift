import Foundation
import Testing

@Suite("classroom-player: the uplink goes out, every peer comes in", .serialized)
struct TwoWayTests {
    @Test("the uplink WAV follows the microphone's steps, and RTP uplinks (Opus and G.711) are received by gst-launch-1.0 from their SDP")
    func uplink() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 6, volume: 0.05)
        let timeline = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 1.0, "do": "mic", "on": true}, {"at": 4.0, "do": "mic", "on": false}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let (opusPort, pcmuPort) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
        let uplinkWAV = folder.appendingPathComponent("uplink.wav"), events = folder.appendingPathComponent("events.jsonl")
        let opusSDP = folder.appendingPathComponent("opus.sdp"), pcmuSDP = folder.appendingPathComponent("pcmu.sdp")
        // Two players write one SDP each; the receivers read them.
        let player = try PlayerProcess(["play", lesson.path, "--mic", Fixtures.sample("student-mic.ogg"), "--script", timeline.path, "--output", "null",
                                        "--uplink", "wav:\(uplinkWAV.path)", "--uplink", "rtp://127.0.0.1:\(opusPort)",
                                        "--uplink", "rtp://localhost:\(pcmuPort)?codec=pcmu", "--uplink-sdp", opusSDP.path,
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        // The SDP file holds both descriptions; each receiver gets its own.
        let both = try String(contentsOf: opusSDP, encoding: .utf8).components(separatedBy: "v=0")
        #expect(both.count == 3, "\(both)")
        guard both.count == 3 else { return }
        try ("v=0" + both[1]).write(to: opusSDP, atomically: true, encoding: .utf8)
        try ("v=0" + both[2]).write(to: pcmuSDP, atomically: true, encoding: .utf8)
        #expect(both[1].contains("m=audio \(opusPort) RTP/AVP 111") && both[1].contains("a=rtpmap:111 opus/48000/2"))
        #expect(both[2].contains("c=IN IP4 127.0.0.1") && both[2].contains("m=audio \(pcmuPort) RTP/AVP 0") && both[2].contains("a=rtpmap:0 PCMU/8000"))
        let started = Fixtures.events(events, named: "started").first
        #expect((started?["uplink_sdp"] as? [String])?.first?.contains("m=audio \(opusPort) RTP/AVP 111") == true)

        var receivers: [(Process, URL)] = []
        for (sdp, name) in [(opusSDP, "opus"), (pcmuSDP, "pcmu")] {
            let wav = folder.appendingPathComponent("received-\(name).wav")
            receivers.append((try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "-e", "filesrc", "location=\(sdp.path)", "!", "sdpdemux", "latency=60", "!", "decodebin",
                                                                             "!", "audioconvert", "!", "audioresample", "!", "audio/x-raw,rate=48000,channels=1",
                                                                             "!", "wavenc", "!", "filesink", "location=\(wav.path)"]), wav))
        }
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        for (receiver, _) in receivers { receiver.interrupt() }
        for (receiver, wav) in receivers {
            // gst-launch -e ends at its EOS, which a receiver that got no packet never has.
            await Fixtures.finish(receiver, within: .seconds(10),
                                  "gst-launch-1.0 writing \(wav.lastPathComponent) (\((try? FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int) ?? 0) bytes) after SIGINT")
        }

        let sent = try WAVFile(uplinkWAV)
        let before = sent.rms(from: 0.1, to: 0.9), during = sent.rms(from: 1.5, to: 3.5), after = sent.rms(from: 4.6, to: 5.6)
        print("FIGURE uplink WAV: \(sent.seconds) s; mic off \(before) dBFS, on \(during) dBFS, off again \(after) dBFS")
        #expect(sent.headerMatchesFile)
        #expect(sent.seconds >= 5.5)               // silent, not absent, while the microphone is off
        #expect(before < -90 && after < -90)
        #expect(during > -40)
        let stopped = Fixtures.events(events, named: "stopped").first
        #expect((stopped?["uplink_frames"] as? Double ?? 0) >= 250, "\(String(describing: stopped))")

        for (_, wav) in receivers {
            let received = try WAVFile(wav)
            let windows = stride(from: 0.0, to: received.seconds - 0.1, by: 0.1).map { received.rms(from: $0, to: $0 + 0.1) }
            let speech = Double(windows.filter { $0 > -45 }.count) / 10, silence = Double(windows.filter { $0 < -70 }.count) / 10
            print("FIGURE \(wav.lastPathComponent): \(received.seconds) s, speech \(speech) s, silence \(silence) s")
            #expect(received.headerMatchesFile)
            #expect(speech >= 1.5)                 // the student, through the codec and the network
            #expect(silence >= 1.0)                // and the silence around it, sent as packets
        }
    }

    @Test("peers from a file, Opus RTP from gst-launch-1.0 (pt 96) and ffmpeg (pt 111) and a G.711 SDP are all heard; one removed is gone; a payload it cannot decode is said within 1 s and counted")
    func peers() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav"), fileFeed = folder.appendingPathComponent("file-peer.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 9, volume: 0)
        try Fixtures.toneLesson(at: fileFeed, seconds: 12, frequency: 300, volume: 0.1)
        let (gstPort, ffmpegPort, pcmuPort, wrongPort) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
        let sdp = folder.appendingPathComponent("pcmu.sdp")
        try "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=G.711 peer\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio \(pcmuPort) RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
            .write(to: sdp, atomically: true, encoding: .utf8)
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "file=\(fileFeed.path)", "--live", "gst=rtp://127.0.0.1:\(gstPort)",
                                        "--live", "rtp://127.0.0.1:\(ffmpegPort)?pt=111", "--live", "g711=\(sdp.path)", "--live", "wrong=rtp://127.0.0.1:\(wrongPort)",
                                        "--mic", "none", "--output", "wav:\(wav.path)", "--events", events.path], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        let senders = [
            try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "audiotestsrc", "is-live=true", "num-buffers=400", "samplesperbuffer=960", "freq=700", "volume=0.2", "!",
                                                           "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "!", "rtpopuspay", "pt=96", "!",
                                                           "udpsink", "host=127.0.0.1", "port=\(gstPort)"]),
            try Fixtures.ffmpegTone(frequency: 1500, seconds: 8, codec: "libopus", payloadType: 111, port: ffmpegPort),
            try Fixtures.ffmpegTone(frequency: 2500, seconds: 8, codec: "pcm_mulaw", port: pcmuPort),
        ]
        let wrongSentAt = ContinuousClock.now
        let wrong = try Fixtures.ffmpegTone(frequency: 3500, seconds: 3, codec: "pcm_mulaw", port: wrongPort)
        #expect(await waitUntil(timeout: .seconds(3)) { !Fixtures.events(events, named: "live-rejected").isEmpty })
        let saidAfter = ContinuousClock.now - wrongSentAt
        let rejected = Fixtures.events(events, named: "live-rejected").first
        print("FIGURE undecodable payload said after \(saidAfter): \(rejected?["message"] ?? "-")")
        #expect(saidAfter < .seconds(1.2))        // within 1 s of the first packet (ffmpeg starts in about 0.1 s)
        #expect(rejected?["id"] as? String == "wrong")
        #expect((rejected?["message"] as? String)?.contains("payload type 0 (PCMU)") == true)

        // Runtime: a duplicate id and an unknown peer are refused; then the gst-launch peer leaves.
        try await Task.sleep(for: .seconds(3))
        player.stdin.fileHandleForWriting.write(Data(#"{"do":"peer","add":"\#(fileFeed.path)","id":"gst"}"# .utf8 + Data("\n".utf8)))
        player.stdin.fileHandleForWriting.write(Data(#"{"do":"peer","remove":"nobody"}"# .utf8 + Data("\n".utf8)))
        player.stdin.fileHandleForWriting.write(Data(#"{"do":"status","id":"s"}"# .utf8 + Data("\n".utf8)))
        player.stdin.fileHandleForWriting.write(Data(#"{"do":"peer","remove":"gst"}"# .utf8 + Data("\n".utf8)))
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(events, named: "live-removed").isEmpty })
        try await Task.sleep(for: .seconds(2))
        let answers = player.stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(answers.contains { $0["error"] as? String == "bad-value" && ($0["message"] as? String)?.contains("already in the class") == true }, "\(answers)")
        #expect(answers.contains { $0["error"] as? String == "unavailable" && ($0["message"] as? String)?.contains("there is no peer \"nobody\"") == true }, "\(answers)")
        let status = answers.first { $0["id"] as? String == "s" }
        let listed = (status?["peers"] as? [[String: Any]]) ?? []
        #expect(Set(listed.compactMap { $0["id"] as? String }) == ["file", "gst", "live-1", "g711", "wrong"], "\(listed)")
        #expect(listed.first { $0["id"] as? String == "gst" }?["receiving"] as? Bool == true)
        // Still listening for an Opus sender: its PCMU packets are dropped and counted, not played.
        let wrongPeer = listed.first { $0["id"] as? String == "wrong" }
        #expect(wrongPeer?["state"] as? String == "playing" && (wrongPeer?["rejected_packets"] as? Int ?? 0) > 50, "\(wrongPeer ?? [:])")
        player.stdin.fileHandleForWriting.write(Data(#"{"do":"stop"}"# .utf8 + Data("\n".utf8)))
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        for sender in senders + [wrong] { Fixtures.stop(sender) }

        let removedAt = Fixtures.events(events, named: "live-removed").first?["t"] as? Double ?? 0
        func level(_ hz: Int, _ from: Double, _ to: Double) throws -> Double { try Fixtures.bandLevel(wav, from: from, to: to, band: (hz - 60)...(hz + 60)) }
        let (earlyFrom, earlyTo) = (removedAt - 2.0, removedAt - 0.3)
        var heard: [String] = []
        var before: [String: Double] = [:]
        for (name, hz) in [("file", 300), ("gst", 700), ("ffmpeg", 1500), ("g711", 2500)] {
            let value = try level(hz, earlyFrom, earlyTo)
            before[name] = value
            heard.append("\(name) \(hz) Hz \(String(format: "%.1f", value)) dB")
            #expect(value > -40, "\(name) at \(hz) Hz: \(value) dBFS before the removal")
        }
        let undecodable = try level(3500, earlyFrom, earlyTo)
        let gstAfter = try level(700, removedAt + 0.5, removedAt + 1.5), fileAfter = try level(300, removedAt + 0.5, removedAt + 1.5)
        print("FIGURE peers before the removal at \(removedAt) s: \(heard.joined(separator: ", ")); undecodable 3500 Hz \(undecodable) dB; after: gst \(gstAfter) dB, file \(fileAfter) dB")
        // The other peers' codec noise (G.711 above all) lies around -60 dB in any 120 Hz band.
        #expect(undecodable < -55)
        #expect(gstAfter < min(-50, (before["gst"] ?? 0) - 25))   // the removed peer is gone from the mix …
        #expect(fileAfter > -40)                   // … and the others play on
    }

    @Test("a peer that sends digital silence (a muted teacher) is not an interruption; a peer whose packets stop is (1025)")
    func mutedPeer() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0.05)
        let port = try Fixtures.freeUDPPort()
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(port)", "--mic", "none", "--output", "null",
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        // 3 s of Opus-encoded digital silence in 20 ms packets, paced in real time.
        try Fixtures.gstLaunch("audiotestsrc is-live=true num-buffers=150 samplesperbuffer=960 wave=silence "
                               + "! audio/x-raw,rate=48000,channels=1 ! opusenc ! rtpopuspay pt=111 ! udpsink host=127.0.0.1 port=\(port)")
        let alarmsWhileSilent = Fixtures.events(events, named: "alarm").filter { $0["number"] as? Int == 1025 }
        #expect(alarmsWhileSilent.isEmpty, "1025 while the teacher sent silence: \(alarmsWhileSilent)")
        #expect(await waitUntil(timeout: .seconds(3)) { Fixtures.events(events, named: "alarm").contains { $0["number"] as? Int == 1025 } })
        let alarm = Fixtures.events(events, named: "alarm").first { $0["number"] as? Int == 1025 }
        print("FIGURE muted peer: no 1025 during 3 s of digital silence; 1025 at \(alarm?["t"] ?? "-") s, after the 3 s of packets stopped")
        #expect(alarm?["owner"] as? String == "rtc-teacher")
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
    }

    @Test("two kiosks talk over RTP: each output holds the other's voice, and its own voice not above -30 dB relative")
    func twoKiosks() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0)
        let low = 200...900, high = 2_000...4_000
        let voiceA = folder.appendingPathComponent("a.wav"), voiceB = folder.appendingPathComponent("b.wav")
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve.", at: voiceA, band: low)
        try Fixtures.speech("Hello teacher. I have a question about the homework for tomorrow please.", at: voiceB, band: high)
        let timeline = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let (portA, portB) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
        func kiosk(_ name: String, voice: URL, listen: Int, send: Int) throws -> (PlayerProcess, URL) {
            let wav = folder.appendingPathComponent("kiosk-\(name).wav")
            return (try PlayerProcess(["play", lesson.path, "--live", "other=rtp://127.0.0.1:\(listen)", "--uplink", "rtp://127.0.0.1:\(send)",
                                       "--mic", voice.path, "--script", timeline.path, "--output", "wav:\(wav.path)",
                                       "--events", folder.appendingPathComponent("events-\(name).jsonl").path, "--no-stdin"], in: folder), wav)
        }
        let (a, wavA) = try kiosk("a", voice: voiceA, listen: portA, send: portB)
        let (b, wavB) = try kiosk("b", voice: voiceB, listen: portB, send: portA)
        #expect(try await a.exitStatus(within: .seconds(30)) == 0, "stderr: \(a.stderr)")
        #expect(try await b.exitStatus(within: .seconds(30)) == 0, "stderr: \(b.stderr)")
        // Where a lost voice was lost (ci2 once: B heard -96 dBFS while A heard B): what each sent, received and said.
        for name in ["a", "b"] {
            let events = folder.appendingPathComponent("events-\(name).jsonl")
            let said = Fixtures.events(events).filter { ["live-latched", "live-rejected", "live-failed", "microphone", "alarm", "uplink-failed"].contains($0["event"] as? String ?? "") }
            let stopped = Fixtures.events(events, named: "stopped").first
            print("FIGURE kiosk \(name): uplink frames \(stopped?["uplink_frames"] ?? "?"), received \(stopped?["peers"] ?? "?"); "
                  + said.map { "\($0["t"] ?? "?") \($0["event"] ?? "?") \($0["message"] ?? $0["connected"] ?? "")" }.joined(separator: " | "))
        }
        for (wav, own, other) in [(wavA, low, high), (wavB, high, low)] {
            let seconds = try WAVFile(wav).seconds
            // Medians of 100 ms windows over the speech: a click from a late packet is not a voice coming back.
            let otherLevel = try Fixtures.medianBandLevel(wav, from: 0.5, to: min(seconds, 4.5), band: other)
            let ownLevel = try Fixtures.medianBandLevel(wav, from: 0.5, to: min(seconds, 4.5), band: own)
            print("FIGURE \(wav.lastPathComponent): the other's band \(otherLevel) dBFS, its own band \(ownLevel) dBFS")
            #expect(otherLevel > -50)              // the other kiosk's student is heard
            #expect(ownLevel < otherLevel - 30)    // its own voice does not come back
        }
    }
}
