import Foundation
import Testing

/// A peer's port plays the stream it latched onto; strays and strangers are dropped and counted.
@Suite("classroom-player: stray packets and strangers on a peer's port", .serialized)
struct FeedLatchTests {
    /// One UDP datagram from python3: `payload` is a Python bytes expression.
    private func sendDatagram(_ payload: String, to host: String, port: Int) throws {
        let process = try Fixtures.start("/usr/bin/python3", ["-c", "import socket,struct; socket.socket(socket.AF_INET,socket.SOCK_DGRAM).sendto(\(payload),('\(host)',\(port)))"])
        process.waitUntilExit()
    }

    /// A PCMU-typed packet of 160 zero bytes, as a hostile tester sent it.
    private let strayPacket = "struct.pack('>BBHII',0x80,0,1,160,0x1234)+bytes(160)"

    /// A sine as Opus RTP in real time from gst-launch-1.0, with its own SSRC, to `host:port`.
    /// `sequence` is its first sequence number (random when nil).
    private func opusTone(_ hz: Int, seconds: Double, volume: Double = 0.2, ssrc: Int, sequence: Int? = nil, pt: Int = 96, host: String = "127.0.0.1", port: Int) throws -> Process {
        try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "audiotestsrc", "is-live=true", "num-buffers=\(Int(seconds * 50))", "samplesperbuffer=960", "freq=\(hz)",
                                                       "volume=\(volume)", "!", "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "!", "rtpopuspay", "pt=\(pt)",
                                                       "ssrc=\(ssrc)"] + (sequence.map { ["seqnum-offset=\($0)"] } ?? []) + ["!", "udpsink", "host=\(host)", "port=\(port)"])
    }

    /// A player of a silent lesson of `seconds` with the live feed `teacher=rtp://127.0.0.1:PORT`, started.
    private func playing(seconds: Int) async throws -> (folder: URL, port: Int, wav: URL, events: URL, player: PlayerProcess) {
        let folder = try Fixtures.folder()
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: seconds, volume: 0)
        let port = try Fixtures.freeUDPPort()
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(port)", "--mic", "none", "--output", "wav:\(wav.path)",
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        return (folder, port, wav, events, player)
    }

    private func band(_ wav: URL, _ hz: Int, _ from: Double, _ to: Double) throws -> Double {
        try Fixtures.bandLevel(wav, from: from, to: to, band: (hz - 60)...(hz + 60))
    }

    @Test("a stray packet before and during the teacher and a stranger's SSRC on the same payload type are dropped and counted; a restarted teacher takes over")
    func strayAndStranger() async throws {
        let (folder, port, wav, events, player) = try await playing(seconds: 12)
        defer { try? FileManager.default.removeItem(at: folder) }
        try sendDatagram(strayPacket, to: "127.0.0.1", port: port)      // before the teacher: it must not pre-empt the teacher
        // 150 packets: the teacher's last is 10149.
        let teacher = try opusTone(1000, seconds: 3, ssrc: 1111, sequence: 10_000, port: port)
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(events, named: "live-receiving").isEmpty })
        try await Task.sleep(for: .milliseconds(500))
        try sendDatagram(strayPacket, to: "127.0.0.1", port: port)      // during: it must not end the feed
        let stranger = try opusTone(3000, seconds: 1, volume: 0.5, ssrc: 2222, port: port)
        teacher.waitUntilExit()
        stranger.waitUntilExit()
        // The teacher's sender restarts (a new SSRC) once the old one has been silent for 2 s, its
        // sequence numbers 50 behind the old sender's last: a jitter buffer that judged them by the
        // old stream dropped its first second as too late.
        try await Task.sleep(for: .milliseconds(2500))
        let restarted = try opusTone(2000, seconds: 1.5, ssrc: 3333, sequence: 10_100, port: port)
        restarted.waitUntilExit()
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")

        let rejected = Fixtures.events(events, named: "live-rejected").compactMap { $0["message"] as? String }
        let latched = Fixtures.events(events, named: "live-latched")
        let stopped = Fixtures.events(events, named: "stopped").first
        let rejectedPackets = ((stopped?["peers"] as? [[String: Any]])?.first?["rejected_packets"] as? Int) ?? 0
        let teacherFrom = latched.first?["t"] as? Double ?? 0, restartedFrom = latched.dropFirst().first?["t"] as? Double ?? 0
        let teacherLevel = try band(wav, 1000, teacherFrom + 0.3, teacherFrom + 2.7)
        let strangerLevel = try band(wav, 3000, 0, 12), restartedLevel = try band(wav, 2000, restartedFrom + 0.2, restartedFrom + 1.2)
        print("FIGURE stray and stranger: teacher 1 kHz \(teacherLevel) dB, stranger 3 kHz \(strangerLevel) dB, restarted 2 kHz \(restartedLevel) dB; "
              + "\(rejectedPackets) packets rejected; said: \(rejected); latched: \(latched.compactMap { $0["message"] })")
        #expect(Fixtures.events(events, named: "live-failed").isEmpty, "\(Fixtures.events(events, named: "live-failed"))")
        #expect(rejected.contains { $0.contains("payload type 0 (PCMU)") }, "\(rejected)")
        #expect(rejected.contains { $0.contains("a second sender (SSRC 0x8ae") }, "\(rejected)")
        #expect(rejectedPackets >= 2 + 45, "\(stopped ?? [:])")     // both strays and (nearly) all 50 of the stranger's packets
        #expect(teacherLevel > -30)                                // the teacher played through both strays and the stranger …
        #expect(strangerLevel < -55)                               // … and the stranger was never heard
        #expect(latched.count == 2 && (latched.last?["message"] as? String)?.contains("SSRC 0xd05") == true, "\(latched)")
        #expect(restartedLevel > -30)                              // the restarted sender plays once the old one was silent, from its start
        // A new sender is a new stream, not the old one's lost packets.
        #expect(Fixtures.events(events, named: "live-loss-recovery").isEmpty, "\(Fixtures.events(events, named: "live-loss-recovery"))")
    }

    @Test("an SDP feed listens only on the address its c= line names, and a second SSRC on its port is dropped, not fatal")
    func sessionDescriptionFeed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 8, volume: 0)
        let port = try Fixtures.freeUDPPort()
        let sdp = folder.appendingPathComponent("teacher.sdp")
        try "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=teacher\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio \(port) RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n"
            .write(to: sdp, atomically: true, encoding: .utf8)
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=\(sdp.path)", "--mic", "none", "--output", "wav:\(wav.path)",
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        // 127.0.0.2 is this machine too, but not the address the SDP names: sdpdemux listened on every address.
        let elsewhere = try opusTone(1000, seconds: 1, ssrc: 1111, pt: 111, host: "127.0.0.2", port: port)
        elsewhere.waitUntilExit()
        let teacher = try opusTone(2000, seconds: 3, ssrc: 2222, pt: 111, port: port)
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(events, named: "live-receiving").isEmpty })
        try await Task.sleep(for: .milliseconds(500))
        let second = try opusTone(3000, seconds: 1, volume: 0.5, ssrc: 3333, pt: 111, port: port)   // "Padname stream_0 is not unique" ended the feed
        teacher.waitUntilExit()
        second.waitUntilExit()
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")

        let latchedAt = Fixtures.events(events, named: "live-latched").first?["t"] as? Double ?? 0
        let elsewhereLevel = try band(wav, 1000, 0, 8), teacherLevel = try band(wav, 2000, latchedAt + 0.3, latchedAt + 2.7)
        let secondLevel = try band(wav, 3000, 0, 8)
        let rejected = Fixtures.events(events, named: "live-rejected").compactMap { $0["message"] as? String }
        print("FIGURE SDP feed: sent to 127.0.0.2 \(elsewhereLevel) dB, teacher \(teacherLevel) dB, second SSRC \(secondLevel) dB; said: \(rejected)")
        #expect(Fixtures.events(events, named: "live-failed").isEmpty, "\(Fixtures.events(events, named: "live-failed"))")
        #expect(elsewhereLevel < -55)
        #expect(teacherLevel > -30)
        #expect(secondLevel < -55)
        #expect(rejected.contains { $0.contains("a second sender (SSRC 0xd05") }, "\(rejected)")
    }

    @Test("ten packets whose timestamps step by +0x7fffffff, before the teacher and forged with the teacher's SSRC while the teacher plays, crash nothing: the teacher is heard")
    func forgedTimestamps() async throws {
        let (folder, port, wav, events, player) = try await playing(seconds: 10)
        defer { try? FileManager.default.removeItem(at: folder) }
        let forged = { (ssrc: UInt32) in (0..<10).map { HostileSender.rtp(payloadType: 96, sequence: UInt16($0), timestamp: UInt32(truncatingIfNeeded: 0x7fff_ffff &* ($0 + 1)), ssrc: ssrc) } }
        try HostileSender.send(forged(0xbad), to: port)
        // The stranger latched; the teacher takes over once it has been silent 2 s.
        try await Task.sleep(for: .milliseconds(2_300))
        let teacher = try opusTone(1000, seconds: 4, ssrc: 1111, port: port)
        #expect(await waitUntil(timeout: .seconds(5)) { Fixtures.events(events, named: "live-latched").count >= 2 }, "stderr: \(player.stderr)")
        try await Task.sleep(for: .seconds(1))
        try HostileSender.send(forged(1111), to: port)
        teacher.waitUntilExit()
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        let latchedAt = Fixtures.events(events, named: "live-latched").last?["t"] as? Double ?? 0
        let heard = try band(wav, 1000, latchedAt + 0.3, latchedAt + 3.5)
        print("FIGURE forged timestamp steps of +0x7fffffff: teacher 1 kHz \(heard) dB after them")
        #expect(heard > -40)
    }
}
