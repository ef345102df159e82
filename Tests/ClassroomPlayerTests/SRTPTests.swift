import Foundation
import Testing

/// SRTP between kiosks, against ffmpeg's SRTP (an implementation no one here wrote) both ways.
@Suite("classroom-player: SRTP feeds and uplinks", .serialized)
struct SRTPTests {
    /// ffmpeg sending a sine as SRTP (Opus, payload type 111) with `key`, in real time.
    private func ffmpegSRTP(frequency: Int, seconds: Int, key: String, port: Int) throws -> Process {
        try Fixtures.start("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds)",
                                               "-ac", "1", "-c:a", "libopus", "-payload_type", "111", "-f", "rtp", "-srtp_out_suite", "AES_CM_128_HMAC_SHA1_80",
                                               "-srtp_out_params", key, "srtp://127.0.0.1:\(port)"])
    }

    @Test("ffmpeg's SRTP is heard through --live srtp://; the same stream with a wrong key and plain RTP on the port are never heard, and are counted")
    func feed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        // Long enough for three senders started one after the other on a busy machine (each
        // ffmpeg's start-up is slow there): the teacher must speak before the lesson ends.
        try Fixtures.toneLesson(at: lesson, seconds: 16, volume: 0)
        let (keyURL, key) = try Fixtures.srtpKeyFile("teacher.key", in: folder)
        let (_, wrongKey) = try Fixtures.srtpKeyFile("other.key", in: folder)
        let port = try Fixtures.freeUDPPort()
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=srtp://127.0.0.1:\(port)?key-file=\(keyURL.path)", "--mic", "none",
                                        "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        // First the strangers: were they judged before authentication, the first would latch and lock the teacher out.
        try ffmpegSRTP(frequency: 3000, seconds: 1, key: wrongKey, port: port).waitUntilExit()
        try Fixtures.gstLaunch("audiotestsrc is-live=true num-buffers=50 samplesperbuffer=960 freq=2000 volume=0.5 ! audio/x-raw,rate=48000,channels=1 "
                               + "! opusenc ! rtpopuspay pt=111 ! udpsink host=127.0.0.1 port=\(port)")
        try ffmpegSRTP(frequency: 1000, seconds: 2, key: key, port: port).waitUntilExit()
        #expect(try await player.exitStatus(within: .seconds(25)) == 0, "stderr: \(player.stderr)")

        let latchedAt = Fixtures.events(events, named: "live-latched").first?["t"] as? Double ?? 0
        let teacher = try Fixtures.bandLevel(wav, from: latchedAt + 0.3, to: latchedAt + 1.7, band: 940...1060)
        let wrong = try Fixtures.bandLevel(wav, from: 0, to: 16, band: 2940...3060), plain = try Fixtures.bandLevel(wav, from: 0, to: 16, band: 1940...2060)
        let stopped = Fixtures.events(events, named: "stopped").first
        let rejected = ((stopped?["peers"] as? [[String: Any]])?.first?["rejected_packets"] as? Int) ?? 0
        let said = Fixtures.events(events, named: "live-rejected").compactMap { $0["message"] as? String }
        print("FIGURE SRTP feed: teacher 1 kHz \(teacher) dB; wrong key 3 kHz \(wrong) dB, plain RTP 2 kHz \(plain) dB; \(rejected) packets rejected; said \(said)")
        #expect(teacher > -40)
        #expect(wrong < -55 && plain < -55)
        #expect(rejected >= 90, "\(stopped ?? [:])")           // 50 wrong-key and 50 plain packets, less a few at the edges
        #expect(said.contains { $0.contains("fail SRTP authentication") }, "\(said)")
        let everything = player.stderr + ((try? String(contentsOf: events, encoding: .utf8)) ?? "")
        #expect(!everything.contains(key) && !everything.contains(wrongKey))   // no key in anything the player says
    }

    @Test("60,000 junk packets, each with a new SSRC, neither grow the player nor drown the teacher: they are refused before srtpdec makes a stream, and counted")
    func ssrcFlood() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 14, volume: 0)
        let (keyURL, key) = try Fixtures.srtpKeyFile("teacher.key", in: folder)
        let port = try Fixtures.freeUDPPort()
        // Made before the player starts, so the flood takes no longer than its sending.
        let noise = HostileSender.rtp(sequence: 0, timestamp: 0, ssrc: 0).suffix(80)
        let bursts = (0..<60).map { burst in
            (0..<1_000).map { index in
                HostileSender.rtp(sequence: UInt16(truncatingIfNeeded: burst * 1_000 + index), timestamp: UInt32.random(in: 0...UInt32.max), ssrc: UInt32.random(in: 0...UInt32.max), payload: 0) + noise
            }
        }
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=srtp://127.0.0.1:\(port)?key-file=\(keyURL.path)", "--mic", "none",
                                        "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        let teacher = try ffmpegSRTP(frequency: 1000, seconds: 6, key: key, port: port)
        #expect(await waitUntil(timeout: .seconds(10)) { !Fixtures.events(events, named: "live-latched").isEmpty }, "stderr: \(player.stderr)")
        let before = HostileSender.peakMemory(of: player.process.processIdentifier)
        // In bursts, so the socket's receive buffer takes most of them while the teacher plays on.
        var sent = 0
        for packets in bursts {
            sent += try HostileSender.send(packets, to: port)
            try await Task.sleep(for: .milliseconds(40))
        }
        let after = HostileSender.peakMemory(of: player.process.processIdentifier)
        #expect(before > 0 && after > 0, "the player ended before the flood did")
        teacher.waitUntilExit()
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        let latchedAt = Fixtures.events(events, named: "live-latched").first?["t"] as? Double ?? 0
        let heard = try Fixtures.bandLevel(wav, from: latchedAt + 0.5, to: latchedAt + 4.5, band: 940...1060)
        let peer = (Fixtures.events(events, named: "stopped").first?["peers"] as? [[String: Any]])?.first
        let rejected = (peer?["rejected_packets"] as? Int) ?? 0
        print("FIGURE an SSRC flood of \(sent) junk SRTP packets: peak RSS \(before / 1024) -> \(after / 1024) MB, \(rejected) packets rejected, teacher 1 kHz \(heard) dB")
        #expect(after - before < 20 * 1024, "peak RSS grew \(before) -> \(after) kB")
        #expect(rejected > 10_000, "\(peer ?? [:])")
        #expect(heard > -40)
    }

    @Test("the SDP ffmpeg writes for its SRTP (a=crypto) is played as a feed; the same SDP readable by others is refused")
    func sessionDescriptionWithKey() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0)
        let (_, key) = try Fixtures.srtpKeyFile("teacher.key", in: folder)
        let port = try Fixtures.freeUDPPort()
        let sdp = folder.appendingPathComponent("teacher.sdp")
        // ffmpeg writes its SDP as it starts: a first 0.2 s run makes it, the second one is the teacher.
        try Fixtures.start("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=0.2", "-ac", "1", "-c:a", "libopus",
                                               "-payload_type", "111", "-f", "rtp", "-srtp_out_suite", "AES_CM_128_HMAC_SHA1_80", "-srtp_out_params", key,
                                               "-sdp_file", sdp.path, "srtp://127.0.0.1:\(port)"]).waitUntilExit()
        let text = try String(contentsOf: sdp, encoding: .utf8)
        #expect(text.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"), "\(text)")

        chmod(sdp.path, 0o644)
        let refused = try PlayerProcess(["play", lesson.path, "--live", sdp.path, "--mic", "none", "--output", "null", "--no-stdin"], in: folder)
        #expect(try await refused.exitStatus(within: .seconds(20)) == 1)
        #expect(refused.stderr.contains("holds an SRTP key") && refused.stderr.contains("chmod 600"), "\(refused.stderr)")

        chmod(sdp.path, 0o600)
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=\(sdp.path)", "--mic", "none", "--output", "wav:\(wav.path)",
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        try ffmpegSRTP(frequency: 1000, seconds: 2, key: key, port: port).waitUntilExit()
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        let latchedAt = Fixtures.events(events, named: "live-latched").first?["t"] as? Double ?? 0
        let teacher = try Fixtures.bandLevel(wav, from: latchedAt + 0.3, to: latchedAt + 1.7, band: 940...1060)
        print("FIGURE SRTP from ffmpeg's SDP (a=crypto): teacher 1 kHz \(teacher) dB; mode 644 refused: \(refused.stderr.split(separator: "\n").last ?? "")")
        #expect(teacher > -40)
        #expect(!player.stderr.contains(key) && !refused.stderr.contains(key))
    }

    @Test("a key file others can read is refused with exit 1 and what to do, and the key is not printed")
    func openKeyFile() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1, volume: 0)
        let (keyURL, key) = try Fixtures.srtpKeyFile("teacher.key", in: folder)
        chmod(keyURL.path, 0o644)
        for argument in [["--live", "srtp://127.0.0.1:\(try Fixtures.freeUDPPort())?key-file=\(keyURL.path)"],
                         ["--uplink", "srtp://127.0.0.1:\(try Fixtures.freeUDPPort())?key-file=\(keyURL.path)"]] {
            let player = try PlayerProcess(["play", lesson.path] + argument + ["--mic", "none", "--output", "null", "--no-stdin"], in: folder)
            let status = try await player.exitStatus(within: .seconds(20))
            print("FIGURE \(argument[0]) with a key file of mode 644: exit \(status); \(player.stderr.split(separator: "\n").last ?? "")")
            #expect(status == 1)
            #expect(player.stderr.contains("others can read it") && player.stderr.contains("chmod 600 \(keyURL.path)"), "\(player.stderr)")
            #expect(!player.stderr.contains(key))
        }
    }

    @Test("--uplink srtp:// is decrypted by ffmpeg from the SDP the player writes (RTP/SAVP with a=crypto, readable by its owner only)")
    func uplink() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 6, volume: 0.05)
        let timeline = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 1.0, "do": "mic", "on": true}, {"at": 4.0, "do": "mic", "on": false}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let (keyURL, key) = try Fixtures.srtpKeyFile("uplink.key", in: folder)
        let port = try Fixtures.freeUDPPort()
        let sdp = folder.appendingPathComponent("uplink.sdp"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--mic", Fixtures.sample("student-mic.ogg"), "--script", timeline.path, "--output", "null",
                                        "--uplink", "srtp://127.0.0.1:\(port)?key-file=\(keyURL.path)", "--uplink-sdp", sdp.path,
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        let description = try String(contentsOf: sdp, encoding: .utf8)
        let mode = (try FileManager.default.attributesOfItem(atPath: sdp.path)[.posixPermissions] as? Int) ?? -1
        #expect(description.contains("m=audio \(port) RTP/SAVP 111") && description.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key)"), "\(description)")
        #expect(mode & 0o077 == 0, "the SDP holds the key and has mode \(String(mode, radix: 8))")
        let received = folder.appendingPathComponent("received.wav")
        let receiver = try Fixtures.start("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-protocol_whitelist", "file,udp,rtp,srtp", "-i", sdp.path,
                                                              "-t", "4", "-ar", "48000", "-ac", "1", "-y", received.path])
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        await Fixtures.finish(receiver, within: .seconds(10), "ffmpeg receiving the SRTP uplink (-t 4)")
        let audio = try WAVFile(received)
        let windows = stride(from: 0.0, to: audio.seconds - 0.1, by: 0.1).map { audio.rms(from: $0, to: $0 + 0.1) }
        let speech = Double(windows.filter { $0 > -45 }.count) / 10
        print("FIGURE SRTP uplink decrypted by ffmpeg: \(audio.seconds) s, speech \(speech) s; SDP mode \(String(mode, radix: 8))")
        #expect(speech >= 1.5)                     // the student, decrypted by another implementation
        // The key is in the owner-only SDP file and nowhere else: not on stderr, not in the events,
        // whose `started` still shows the uplink's SDP (RTP/SAVP, without a=crypto).
        let eventsText = try String(contentsOf: events, encoding: .utf8)
        let eventsMode = (try FileManager.default.attributesOfItem(atPath: events.path)[.posixPermissions] as? Int) ?? -1
        let shown = (Fixtures.events(events, named: "started").first?["uplink_sdp"] as? [String])?.first ?? ""
        #expect(!player.stderr.contains(key) && !eventsText.contains(key))
        #expect(shown.contains("m=audio \(port) RTP/SAVP 111") && !shown.contains("a=crypto"), "\(shown)")
        #expect(eventsMode & 0o077 == 0, "the events file has mode \(String(eventsMode, radix: 8))")
    }
}
