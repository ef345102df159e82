import Foundation
import Testing

@Suite("classroom-player: RTP packet time and loss", .serialized)
struct OpusPacketTests {
    @Test("?ptime=10 sends 10 ms packets (twice as many as the 20 ms default, Opus and G.711), the SDP says so and FEC, and the 10 ms uplink is received intact from its SDP")
    func packetTime() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 5, volume: 0.05)   // a silent output would end with exit 3
        let timeline = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 0.5, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let (opus10, opus20, pcmu10, received) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
        let relays = [try LossyRelay(listen: opus10, forward: received, dropEvery: 0, seconds: 20, in: folder),
                      try LossyRelay(listen: opus20, forward: 0, dropEvery: 0, seconds: 20, in: folder),
                      try LossyRelay(listen: pcmu10, forward: 0, dropEvery: 0, seconds: 20, in: folder)]
        defer { for relay in relays { Fixtures.stop(relay.process) } }
        let sdp = folder.appendingPathComponent("uplink.sdp"), events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--mic", Fixtures.sample("student-mic.ogg"), "--script", timeline.path, "--output", "null",
                                        "--uplink", "rtp://127.0.0.1:\(opus10)?ptime=10", "--uplink", "rtp://127.0.0.1:\(opus20)",
                                        "--uplink", "rtp://127.0.0.1:\(pcmu10)?codec=pcmu&ptime=10", "--uplink-sdp", sdp.path,
                                        "--events", events.path, "--no-stdin"], in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        let descriptions = try String(contentsOf: sdp, encoding: .utf8).components(separatedBy: "v=0").dropFirst().map { "v=0" + $0 }
        try #require(descriptions.count == 3, "\(descriptions) stderr: \(player.stderr)")
        #expect(descriptions[0].contains("a=ptime:10\r\na=maxptime:10") && descriptions[0].contains("a=fmtp:111 sprop-stereo=0;stereo=0;useinbandfec=1"), "\(descriptions[0])")
        #expect(descriptions[1].contains("a=ptime:20\r\na=maxptime:20"), "\(descriptions[1])")
        #expect(descriptions[2].contains("a=ptime:10") && !descriptions[2].contains("useinbandfec"), "\(descriptions[2])")
        // gst-launch reads the 10 ms uplink's own SDP, pointed at the relay's far side.
        let receivedSDP = folder.appendingPathComponent("received.sdp"), wav = folder.appendingPathComponent("received.wav")
        try descriptions[0].replacingOccurrences(of: "m=audio \(opus10) ", with: "m=audio \(received) ").write(to: receivedSDP, atomically: true, encoding: .utf8)
        let receiver = try Fixtures.start("/usr/bin/gst-launch-1.0", ["-q", "-e", "filesrc", "location=\(receivedSDP.path)", "!", "sdpdemux", "latency=60", "!", "decodebin",
                                                                      // It ends by itself after 4 s of decoded packets: it is one per packet, 10 ms each.
                                                                      "!", "identity", "eos-after=400", "!", "audioconvert", "!", "audioresample", "!", "audio/x-raw,rate=48000,channels=1",
                                                                      "!", "wavenc", "!", "filesink", "location=\(wav.path)"])
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        #expect(await waitUntil(timeout: .seconds(10)) { !receiver.isRunning })
        Fixtures.stop(receiver)

        var counts: [Int] = []
        // What each packet carries: Opus's TOC byte says its frame size, a G.711 packet has 8 bytes a millisecond.
        let durations: [(String, (LossyRelay.Packet) -> Double, Double)] = [
            ("Opus ?ptime=10", \.opusMilliseconds, 10), ("Opus default", \.opusMilliseconds, 20), ("PCMU ?ptime=10", { Double($0.payloadBytes) / 8 }, 10),
        ]
        for (relay, (name, duration, expected)) in zip(relays, durations) {
            let (packets, seconds) = try await relay.packets(within: .seconds(5))
            counts.append(packets.count)
            let seen = Set(packets.map(duration))
            print("FIGURE \(name): \(packets.count) packets in \(String(format: "%.2f", seconds)) s (\(Int((Double(packets.count) / max(seconds, 0.001)).rounded())) per second), "
                  + "each \(seen.sorted()) ms, Opus TOC configurations \(Set(packets.map { $0.firstPayloadByte >> 3 }).sorted())")
            // rtpbaseaudiopayload sends what it holds at a discontinuity (the start, the microphone
            // coming on) as a shorter packet: none is longer, nearly all are exact.
            let exact = packets.filter { duration($0) == expected }.count
            #expect(!packets.isEmpty && (seen.max() ?? 0) == expected && Double(exact) >= 0.98 * Double(packets.count), "\(name): \(seen), \(exact) of \(packets.count) exact")
        }
        // The same seconds of microphone in each: twice the packets at 10 ms.
        #expect(counts.count == 3 && Double(counts[0]) > 1.9 * Double(counts[1]) && Double(counts[0]) < 2.1 * Double(counts[1]), "\(counts)")
        let audio = try WAVFile(wav)
        let windows = stride(from: 0.0, to: audio.seconds - 0.1, by: 0.1).map { audio.rms(from: $0, to: $0 + 0.1) }
        let speech = Double(windows.filter { $0 > -45 }.count) / 10
        print("FIGURE 10 ms uplink received from its SDP: \(audio.seconds) s, speech \(speech) s")
        #expect(audio.headerMatchesFile)
        #expect(abs(audio.seconds - 4) < 0.02)   // 400 decoded packets of 10 ms
        #expect(speech >= 1.5)
    }

    /// Ten-millisecond windows of `wav` between the feed's first and last sound: how many are
    /// silent (below -60 dBFS, a hole) and where (seconds into the WAV), the median level and the lowest.
    private func holes(in wav: URL) throws -> (silent: [Double], windows: Int, median: Double, lowest: Double) {
        let audio = try WAVFile(wav)
        let levels = stride(from: 0.0, to: audio.seconds - 0.01, by: 0.01).map { audio.rms(from: $0, to: $0 + 0.01) }
        guard let first = levels.firstIndex(where: { $0 > -30 }), let last = levels.lastIndex(where: { $0 > -30 }), last - first > 20 else { return ([], 0, -.infinity, -.infinity) }
        let body = (first + 5)...(last - 5)
        let sorted = levels[body].sorted()
        return (body.filter { levels[$0] < -60 }.map { Double($0) / 100 }, body.count, sorted[sorted.count / 2], sorted.first ?? -.infinity)
    }

    @Test("with every 10th packet lost on the way, an Opus feed has no silent holes: the player conceals them (PLC), or rebuilds them where the sender added FEC, holding a packet for it from the first loss on and saying so")
    func lossConcealed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0)
        var runs: [(name: String, player: PlayerProcess, relay: LossyRelay, wav: URL, events: URL, port: Int)] = []
        for name in ["fec", "plain"] {
            let (port, feed) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
            let wav = folder.appendingPathComponent("mix-\(name).wav"), events = folder.appendingPathComponent("events-\(name).jsonl")
            let relay = try LossyRelay(listen: port, forward: feed, dropEvery: 10, seconds: 20, in: folder)
            // Losses, not jitter: a fixed buffer longer than the shared test machine's stalls of the
            // sender and relay (an adaptive one starts at 20 ms, and a path stall beyond the buffer is
            // heard as silence before the buffer grows: scripts/measure/path-stall.py).
            let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(feed)", "--jitter-buffer", "100", "--mic", "none",
                                            "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder)
            runs.append((name, player, relay, wav, events, port))
        }
        defer { for run in runs { Fixtures.stop(run.relay.process) } }
        for run in runs {
            #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(run.events, named: "started").isEmpty }, "stderr: \(run.player.stderr)")
        }
        // 3 s of a 440 Hz tone at -13.5 dBFS in 20 ms Opus packets, paced in real time, with and without in-band FEC.
        let senders = try runs.map { run in
            try Fixtures.startPeer("/usr/bin/gst-launch-1.0", ["-q", "audiotestsrc", "is-live=true", "num-buffers=150", "samplesperbuffer=960", "freq=440", "volume=0.3", "!",
                                                               "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "audio-type=voice"]
                                                              + (run.name == "fec" ? ["inband-fec=true", "packet-loss-percentage=10"] : [])
                                                              + ["!", "rtpopuspay", "pt=96", "!", "udpsink", "host=127.0.0.1", "port=\(run.port)"])
        }
        defer { for sender in senders { Fixtures.stop(sender) } }
        for run in runs {
            #expect(try await run.player.exitStatus(within: .seconds(30)) == 0, "stderr: \(run.player.stderr)")
            let (packets, _) = try await run.relay.packets(within: .seconds(5))
            let lost = packets.filter(\.dropped).count
            let found = try holes(in: run.wav)
            let gaps = zip(packets.dropFirst(), packets).map { ($0.arrival - $1.arrival, $0.arrival) }
            let widest = gaps.max { $0.0 < $1.0 } ?? (0, 0)
            print("FIGURE \(run.name) sender, \(lost) of \(packets.count) packets lost: \(found.silent.count) of \(found.windows) 10 ms windows silent (< -60 dBFS) at \(found.silent) s; "
                  + "median \(String(format: "%.1f", found.median)) dBFS, lowest \(String(format: "%.1f", found.lowest)) dBFS; "
                  + "the widest gap between packets at the relay \(String(format: "%.1f", widest.0 * 1000)) ms, ending \(String(format: "%.2f", widest.1)) s after the first")
            #expect(lost >= 10, "\(run.name)")
            #expect(found.windows >= 200, "\(run.name): the tone was not heard for 2 s")
            let said = Fixtures.events(run.events).filter { ($0["event"] as? String ?? "").hasPrefix("live-") }
            #expect(found.silent.isEmpty, "\(run.name): \(found.silent.count) silent 10 ms windows where packets were lost; the player said \(said) and \(run.player.stderr)")
            // The first loss makes the decoder hold a packet for FEC from then on (either sender: it
            // cannot know a sender adds none), said once with the stream's 20 ms packet.
            let held = Fixtures.events(run.events, named: "live-loss-recovery").compactMap { $0["ms"] as? Double }
            let stopped = Fixtures.events(run.events, named: "stopped").last?["peers"] as? [[String: Any]]
            #expect(held == [20], "\(run.name): live-loss-recovery said \(held)")
            #expect(stopped?.first?["fec_held_ms"] as? Double == 20, "\(run.name): stopped said \(String(describing: stopped))")
        }
    }

    /// The SNR of the lost packets (indices `lost`, 960 samples each) as the player played them
    /// (`played`, its output WAV's channel 0) against the same packets decoded offline without loss
    /// (`reference`). A concealed gap lasts the jitter buffer's estimate (2.5 ms steps), so each lost
    /// packet is found where the 40 ms before it match best (near the previous one), and the
    /// engine's gain is taken from those 40 ms. Only packets with speech in them count.
    private func playedLostPacketSNR(_ played: [Float], reference: [Float], lost: [Int]) -> (snr: Double, judged: Int) {
        let packet = 960, context = 2 * packet
        func level(_ signal: [Float], _ start: Int, _ count: Int) -> Double {
            guard start >= 0, start + count <= signal.count else { return 0 }
            var sum = 0.0
            for index in start..<(start + count) { sum += Double(signal[index]) * Double(signal[index]) }
            return sum / Double(count)
        }
        // Coarse: the first 10 ms window of each within 25 dB of its loudest.
        func onset(_ signal: [Float]) -> Int? {
            let windows = stride(from: 0, to: signal.count - 480, by: 480).map { level(signal, $0, 480) }
            guard let loudest = windows.max(), loudest > 0 else { return nil }
            return windows.firstIndex { $0 > loudest / 316 }.map { $0 * 480 }
        }
        guard let playedOnset = onset(played), let referenceOnset = onset(reference) else { return (-.infinity, 0) }
        let loudestPacket = stride(from: 0, to: reference.count - packet, by: packet).map { level(reference, $0, packet) }.max() ?? 0
        var offset = playedOnset - referenceOnset, radius = 960
        var (energy, noise, judged) = (0.0, 0.0, 0)
        for packetIndex in lost where packetIndex >= 2 && level(reference, packetIndex * packet, packet) > loudestPacket / 1000 {
            let start = (packetIndex - 2) * packet
            var best = (lag: offset, score: -Double.infinity)
            for lag in (offset - radius)...(offset + radius) where start + lag >= 0 && start + lag + context + packet <= played.count {
                var (cross, power) = (0.0, 0.0)
                for sample in 0..<context {
                    let value = Double(played[start + lag + sample])
                    cross += value * Double(reference[start + sample])
                    power += value * value
                }
                let score = cross / max(power.squareRoot(), 1e-9)
                if score > best.score { best = (lag, score) }
            }
            offset = best.lag
            radius = 240   // later packets: within 5 ms of the previous one
            var (cross, power) = (0.0, 0.0)
            for sample in 0..<context {
                cross += Double(played[start + offset + sample]) * Double(reference[start + sample])
                power += Double(reference[start + sample]) * Double(reference[start + sample])
            }
            let gain = cross / max(power, 1e-12)
            guard gain > 0.01 else { continue }
            for sample in (packetIndex * packet)..<((packetIndex + 1) * packet) where sample + offset < played.count {
                let wanted = Double(reference[sample]), got = Double(played[sample + offset]) / gain
                energy += wanted * wanted
                noise += (got - wanted) * (got - wanted)
            }
            judged += 1
        }
        return (10 * log10(max(energy, 1e-12) / max(noise, 1e-12)), judged)
    }

    @Test("with every 10th packet of speech lost on the way, the player rebuilds it from the sender's in-band FEC, far closer to what was sent than concealment of a sender without FEC")
    func receiverDecodesFEC() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 9, volume: 0)
        var runs: [(name: String, player: PlayerProcess, relay: LossyRelay, wav: URL, events: URL, port: Int)] = []
        for name in ["fec", "plain"] {
            let (port, feed) = (try Fixtures.freeUDPPort(), try Fixtures.freeUDPPort())
            let wav = folder.appendingPathComponent("mix-\(name).wav"), events = folder.appendingPathComponent("events-\(name).jsonl")
            let relay = try LossyRelay(listen: port, forward: feed, dropEvery: 10, seconds: 20, in: folder)
            // A fixed jitter buffer: an adaptive one's moves would shift the audio under the comparison.
            let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(feed)", "--jitter-buffer", "60", "--mic", "none",
                                            "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder)
            runs.append((name, player, relay, wav, events, port))
        }
        defer { for run in runs { Fixtures.stop(run.relay.process) } }
        for run in runs {
            #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(run.events, named: "started").isEmpty }, "stderr: \(run.player.stderr)")
        }
        // student-mic.ogg (5.9 s of speech) in 20 ms Opus packets, paced in real time, with and without in-band FEC.
        let senders = try runs.map { run in
            try Fixtures.startPeer("/usr/bin/gst-launch-1.0", ["-q", "filesrc", "location=\(Fixtures.sample("student-mic.ogg"))", "!", "oggdemux", "!", "opusdec", "!",
                                                               "audioconvert", "!", "audioresample", "!", "audio/x-raw,rate=48000,channels=1", "!", "clocksync", "!",
                                                               "opusenc", "frame-size=20", "audio-type=voice"]
                                                              + (run.name == "fec" ? ["inband-fec=true", "packet-loss-percentage=10"] : [])
                                                              + ["!", "rtpopuspay", "pt=96", "!", "udpsink", "host=127.0.0.1", "port=\(run.port)"])
        }
        defer { for sender in senders { Fixtures.stop(sender) } }
        var rebuilt: [String: Double] = [:]
        for run in runs {
            #expect(try await run.player.exitStatus(within: .seconds(30)) == 0, "stderr: \(run.player.stderr)")
            let (packets, _) = try await run.relay.packets(within: .seconds(5))
            let lost = packets.indices.filter { packets[$0].dropped }
            let reference = try OpusOfflineDecoder.decode(packets.map(\.payload), samplesPerPacket: 960, in: folder)
            let played = try WAVFile(run.wav)
            try #require(played.rate == 48_000, "\(played.rate) Hz")
            let (snr, judged) = playedLostPacketSNR(played.samples, reference: reference, lost: lost)
            rebuilt[run.name] = snr
            print("FIGURE player, \(run.name) sender: \(lost.count) of \(packets.count) packets lost, \(judged) with speech judged; "
                  + "played at \(String(format: "%.1f", snr)) dB SNR against the lossless decode")
            #expect(judged >= 10, "\(run.name)")
        }
        #expect((rebuilt["fec"] ?? 0) > 8, "\(rebuilt)")
        #expect((rebuilt["fec"] ?? 0) > (rebuilt["plain"] ?? 0) + 6, "\(rebuilt)")
    }

    /// The SNR of the lost packets (indices `lost`, `samplesPerPacket` each) in `out` against the
    /// same packets in `reference`; both decoded offline, so sample-aligned.
    private func lostPacketSNR(_ out: [Float], against reference: [Float], lost: [Int], samplesPerPacket: Int) -> Double {
        var (energy, noise) = (0.0, 0.0)
        for packet in lost {
            for index in (packet * samplesPerPacket)..<min((packet + 1) * samplesPerPacket, out.count, reference.count) {
                energy += Double(reference[index] * reference[index])
                noise += Double((out[index] - reference[index]) * (out[index] - reference[index]))
            }
        }
        return 10 * log10(max(energy, 1e-12) / max(noise, 1e-12))
    }

    @Test("the uplink's in-band FEC brings lost speech back: with every 10th packet lost, ?fec=on rebuilds it far closer to the lossless stream than ?fec=off's concealment")
    func uplinkFEC() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 5, volume: 0.05)
        let timeline = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 0.3, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let judged = 200   // 4 s of 20 ms packets
        // The relays only record: what was sent is decoded offline, the 10th packets as lost.
        let runs = try ["on", "off"].map { name in
            let uplink = try Fixtures.freeUDPPort()
            return (name: name, uplink: uplink, relay: try LossyRelay(listen: uplink, forward: 0, dropEvery: 10, seconds: 20, in: folder))
        }
        defer { for run in runs { Fixtures.stop(run.relay.process) } }
        let player = try PlayerProcess(["play", lesson.path, "--mic", Fixtures.sample("student-mic.ogg"), "--script", timeline.path, "--output", "null",
                                        "--uplink", "rtp://127.0.0.1:\(runs[0].uplink)?fec=on", "--uplink", "rtp://127.0.0.1:\(runs[1].uplink)?fec=off", "--no-stdin"], in: folder)
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        var rebuilt: [String: Double] = [:]
        for run in runs {
            let packets = Array(try await run.relay.packets(within: .seconds(5)).packets.prefix(judged))
            try #require(packets.count == judged, "\(run.name): \(packets.count) packets sent")
            let lost = packets.indices.filter { packets[$0].dropped }
            let out = try OpusOfflineDecoder.decode(packets.map { $0.dropped ? nil : $0.payload }, samplesPerPacket: 960, in: folder)
            let reference = try OpusOfflineDecoder.decode(packets.map(\.payload), samplesPerPacket: 960, in: folder)
            rebuilt[run.name] = lostPacketSNR(out, against: reference, lost: lost, samplesPerPacket: 960)
            print("FIGURE uplink ?fec=\(run.name): \(lost.count) of \(judged) packets lost; the lost packets at "
                  + "\(String(format: "%.1f", rebuilt[run.name] ?? 0)) dB SNR against the lossless decode")
            #expect(lost.count == judged / 10, "\(run.name)")
        }
        #expect((rebuilt["on"] ?? 0) > 10, "\(rebuilt)")
        #expect((rebuilt["on"] ?? 0) > (rebuilt["off"] ?? 0) + 6, "\(rebuilt)")
    }
}
