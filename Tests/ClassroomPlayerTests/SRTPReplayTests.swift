import ClassroomNetwork
import Foundation
import Testing
import TLS

/// An SDES key stays the same from class to class: what someone on the LAN recorded of one class
/// must not play in a later one. The recording here is a kiosk's real SRTP uplink, its stamps moved
/// two hours back and signed again with the class's key: what the same kiosk sent two hours earlier.
@Suite("classroom-player: an SRTP class recorded and sent again later", .serialized)
struct SRTPReplayTests {
    private static let band = 300...900

    @Test("a kiosk's SRTP stream as recorded two hours earlier is refused and said; the live kiosk after it is heard")
    func earlierClass() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let short = folder.appendingPathComponent("short.wav"), long = folder.appendingPathComponent("long.wav")
        try Fixtures.toneLesson(at: short, seconds: 4, volume: 0)
        try Fixtures.toneLesson(at: long, seconds: 16, volume: 0)
        let speech = folder.appendingPathComponent("speech.wav")
        try Fixtures.speech("Good morning class. Please open your books at page twelve and read along with me.", at: speech, band: Self.band)
        let micOn = folder.appendingPathComponent("mic.json")
        try #"[{"at": 0.1, "do": "mic", "on": true}]"#.write(to: micOn, atomically: true, encoding: .utf8)
        let (keyURL, keyText) = try Fixtures.srtpKeyFile("class.key", in: folder)
        let keyBytes = [UInt8](try #require(Data(base64Encoded: keyText)))
        let authenticator = try #require(SRTPAuthenticator(masterKey: Array(keyBytes.prefix(16)), masterSalt: Array(keyBytes.suffix(14))))

        // The class as someone on the LAN keeps it.
        let recordPort = try Fixtures.freeUDPPort(), recording = folder.appendingPathComponent("recording.hex")
        let recorder = try Fixtures.start("/usr/bin/python3", [Fixtures.root.appendingPathComponent("scripts/udp-recorder.py").path, "\(recordPort)", recording.path])
        defer { Fixtures.stop(recorder) }
        #expect(await waitUntil(timeout: .seconds(10)) { FileManager.default.fileExists(atPath: recording.path) })
        // A kiosk whose student talks over SRTP to `port` for the short lesson, to its end.
        let talk = { (port: Int, name: String) async throws in
            let kiosk = try PlayerProcess(["play", short.path, "--mic", speech.path, "--script", micOn.path, "--uplink", "srtp://127.0.0.1:\(port)?key-file=\(keyURL.path)",
                                           "--output", "wav:\(folder.appendingPathComponent("\(name).wav").path)", "--no-stdin"], in: folder)
            _ = try await kiosk.exitStatus(within: .seconds(20))
        }
        try await talk(recordPort, "kiosk")
        recorder.waitUntilExit()
        let recorded = try String(contentsOf: recording, encoding: .utf8).split(separator: "\n").map { line in
            stride(from: 0, to: line.count, by: 2).map { UInt8(line.dropFirst($0).prefix(2), radix: 16) ?? 0 }
        }
        let earlier = recorded.compactMap { restamped($0, by: -7_200).flatMap { authenticator.signed(rtp: $0) } }
        let stamp = earlier.first.flatMap { RTPFreshness.senderTime(in: $0) } ?? 0
        #expect(recorded.count > 100 && earlier.count == recorded.count, "\(recorded.count) packets recorded, \(earlier.count) restamped")
        #expect(abs(Date().timeIntervalSince1970 - 7_200 - stamp) < 60, "the first restamped packet says \(stamp)")

        // A later class: the recording first, sent as it came (a packet every 20 ms), then the kiosk itself.
        let port = try Fixtures.freeUDPPort()
        let wav = folder.appendingPathComponent("mix.wav"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", long.path, "--live", "teacher=srtp://127.0.0.1:\(port)?key-file=\(keyURL.path)", "--mic", "none",
                                        "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        let replayFrom = ContinuousClock.now
        try HostileSender.send(earlier, to: port, every: .milliseconds(20))
        let replaySeconds = Double((ContinuousClock.now - replayFrom).components.seconds)
        try await Task.sleep(for: .milliseconds(2_500))
        try await talk(port, "live")
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")

        let rejected = Fixtures.events(events, named: "live-rejected").compactMap { $0["message"] as? String }
        let latched = Fixtures.events(events, named: "live-latched")
        let startedAt = Fixtures.events(events, named: "started").first?["t"] as? Double ?? 0
        let latchedAt = latched.first?["t"] as? Double ?? 0
        let replayed = try Fixtures.bandLevel(wav, from: startedAt, to: startedAt + replaySeconds, band: Self.band)
        let heard = try Fixtures.bandLevel(wav, from: latchedAt, to: latchedAt + 3, band: Self.band)
        print("FIGURE an SRTP recording restamped 2 h back: \(recorded.count) packets over \(replaySeconds) s, replayed \(replayed) dB, the live kiosk \(heard) dB; "
              + "said: \(rejected); latched: \(latched.compactMap { $0["message"] })")
        // Two hours, and the seconds between the recording and its replay.
        let age = rejected.compactMap { $0.firstMatch(of: /stamped (\d+) s ago: a recording replayed from an earlier class/).flatMap { Int($0.1) } }.first ?? 0
        #expect((7_200...7_260).contains(age), "\(rejected)")
        #expect(latched.count == 1 && latchedAt > replaySeconds, "the recording latched: \(latched)")
        #expect(replayed < -55, "the recording from an earlier class was heard: \(replayed) dB")
        #expect(heard > -45, "the live kiosk was not heard: \(heard) dB")
    }

    /// `packet` with its NTP-64 stamp moved by `seconds`; nil without one.
    private func restamped(_ packet: [UInt8], by seconds: Int64) -> [UInt8]? {
        guard let stamp = RTPFreshness.stampRange(in: packet) else { return nil }
        let ntp = packet[stamp].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let moved = UInt64(bitPattern: Int64(bitPattern: ntp) &+ seconds << 32)
        var stamped = packet
        for (index, position) in stamp.enumerated() { stamped[position] = UInt8((moved >> (56 - 8 * UInt64(index))) & 0xff) }
        return stamped
    }
}
