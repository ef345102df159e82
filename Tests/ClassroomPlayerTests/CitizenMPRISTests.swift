import Foundation
import Testing

@Suite("classroom-player as a Linux citizen: MPRIS on the session bus, driven by playerctl", .serialized)
struct CitizenMPRISTests {
    @Test("playerctl reads status and metadata, pauses, plays and seeks the lesson; PropertiesChanged and Seeked follow; the WAV has the pause and the jump")
    func playerctlDrivesTheLesson() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bus = try PrivateSessionBus(in: folder)
        defer { bus.stop() }
        // 6 s at 440 Hz, then 6 s at 1 kHz: where the lesson was is heard in the WAV.
        let lesson = folder.appendingPathComponent("two-tones.wav")
        try Self.sox(["-n", "-r", "48000", "-c", "2", "-b", "16", folder.appendingPathComponent("a.wav").path, "synth", "6", "sine", "440", "vol", "0.3"])
        try Self.sox(["-n", "-r", "48000", "-c", "2", "-b", "16", folder.appendingPathComponent("b.wav").path, "synth", "6", "sine", "1000", "vol", "0.3"])
        try Self.sox([folder.appendingPathComponent("a.wav").path, folder.appendingPathComponent("b.wav").path, lesson.path])
        let wav = folder.appendingPathComponent("mix.wav")
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder,
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(await waitUntil(timeout: .seconds(15)) { (try? bus.playerctl(["status"]).output) == "Playing" },
                "playerctl never saw the player Playing (MPRIS on by default with a session bus); stderr: \(player.stderr)")
        #expect(Fixtures.events(events, named: "mpris-exported").first?["name"] as? String == "org.mpris.MediaPlayer2.classroom_player")
        let follow = try bus.start(["--follow", "status"], output: folder.appendingPathComponent("follow.txt"))
        defer { kill(follow.processIdentifier, SIGKILL); follow.waitUntilExit() }   // SIGKILL: see PrivateSessionBus.stop()
        let seekedLog = folder.appendingPathComponent("seeked.txt")
        let monitor = try bus.monitor("type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked'", output: seekedLog)
        defer { kill(monitor.processIdentifier, SIGKILL); monitor.waitUntilExit() }

        let metadata = try bus.playerctl(["metadata"]).output
        #expect(metadata.contains("xesam:title") && metadata.contains("two-tones.wav"), "metadata: \(metadata)")
        #expect(metadata.contains("mpris:length") && metadata.contains("12000000"), "metadata: \(metadata)")
        #expect(metadata.contains("xesam:url") && metadata.contains("file://"), "metadata: \(metadata)")

        try await Task.sleep(for: .seconds(1))   // a second of the 440 Hz part
        #expect(try bus.playerctl(["pause"]).status == 0)
        #expect(await waitUntil(timeout: .seconds(5)) { (try? bus.playerctl(["status"]).output) == "Paused" })
        try await Task.sleep(for: .milliseconds(1500))   // the pause, to be found in the WAV
        #expect(try bus.playerctl(["play"]).status == 0)
        #expect(await waitUntil(timeout: .seconds(5)) { (try? bus.playerctl(["status"]).output) == "Playing" })
        #expect(try bus.playerctl(["position", "8"]).status == 0)
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(events, named: "lesson-seeked").isEmpty }, "the seek did not reach the player")
        #expect(await waitUntil(timeout: .seconds(5)) { ((try? String(contentsOf: seekedLog, encoding: .utf8)) ?? "").contains("int64 8000000") },
                "no Seeked(8000000) signal on the bus: \((try? String(contentsOf: seekedLog, encoding: .utf8)) ?? "")")
        let position = Double(try bus.playerctl(["position"]).output) ?? -1
        #expect(position >= 8 && position < 9, "playerctl position after 'position 8': \(position)")
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        #expect(await waitUntil(timeout: .seconds(5)) { (try? bus.playerctl(["-l"]).output.contains("classroom_player")) != true },
                "the name should be released when the player ends")

        // PropertiesChanged: playerctl --follow printed every change of PlaybackStatus.
        let followed = ((try? String(contentsOf: folder.appendingPathComponent("follow.txt"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(followed.starts(with: ["Playing", "Paused", "Playing"]), "playerctl --follow status printed \(followed)")
        let by = Fixtures.events(events).compactMap { $0["by"] as? String }
        #expect(by == ["mpris", "mpris", "mpris"], "pause, resume and seek should come from MPRIS through the command executor: \(by)")

        let audio = try WAVFile(wav)
        let windows = stride(from: 0.0, to: audio.seconds - 0.05, by: 0.05).map { start in
            (rms: audio.rms(from: start, to: start + 0.05), low: Self.power(audio, at: 440, from: start), high: Self.power(audio, at: 1000, from: start))
        }
        let loud = windows.indices.filter { windows[$0].rms > -30 }
        let low = Double(loud.filter { windows[$0].low > windows[$0].high }.count) * 0.05
        let high = Double(loud.filter { windows[$0].high > windows[$0].low }.count) * 0.05
        let gap = (loud.first.flatMap { first in loud.last.map { last in (first...last).filter { windows[$0].rms < -60 }.count } } ?? 0)
        print("FIGURE MPRIS: 440 Hz heard \(low) s (of 6 in the lesson), 1 kHz \(high) s (8 → 12 s after the seek), silent inside the lesson \(Double(gap) * 0.05) s (the 1.5 s pause)")
        #expect(gap >= 20, "the pause should leave at least 1 s of silence between the tones; found \(Double(gap) * 0.05) s")
        #expect(abs(high - 4) < 0.5, "after seeking to 8 s, 4 s of the 1 kHz part should play; heard \(high) s")
        #expect(low > 0.5 && low < 3.5, "the seek should cut the 440 Hz part short (about 1.5 s played); heard \(low) s")
    }

    @Test("OpenUri (playerctl open) plays the next lesson without the player exiting; a missing file, a file that is not media and smb:// are refused and the lesson playing goes on")
    func openUriLoadsTheNextLesson() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bus = try PrivateSessionBus(in: folder)
        defer { bus.stop() }
        let first = folder.appendingPathComponent("first.wav"), next = folder.appendingPathComponent("next.wav")
        try Self.sox(["-n", "-r", "48000", "-c", "2", "-b", "16", first.path, "synth", "6", "sine", "440", "vol", "0.3"])
        try Self.sox(["-n", "-r", "48000", "-c", "2", "-b", "16", next.path, "synth", "4", "sine", "1000", "vol", "0.3"])
        let wav = folder.appendingPathComponent("mix.wav")
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", first.path, "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder,
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(await waitUntil(timeout: .seconds(15)) { (try? bus.playerctl(["status"]).output) == "Playing" }, "stderr: \(player.stderr)")
        try await Task.sleep(for: .seconds(1))   // a second of the first lesson

        let missing = try bus.playerctl(["open", "file://\(folder.path)/missing.webm"])
        #expect(missing.status != 0 && missing.output.contains("no such file") && missing.output.contains("goes on"), "playerctl open of a missing file: \(missing)")
        #expect(try bus.playerctl(["status"]).output == "Playing")
        // Refused before the lesson playing stops (it stopped, and the player exited 2, before).
        let notMedia = folder.appendingPathComponent("notes.webm")
        try Data("this is not a lesson".utf8).write(to: notMedia)
        for (uri, said) in [(notMedia.absoluteString, "not a media file"), ("smb://127.0.0.1/share/lesson.webm", "smb:// is not a scheme the player opens")] {
            let refused = try bus.playerctl(["open", uri])
            #expect(refused.status != 0 && refused.output.contains(said) && refused.output.contains("goes on"), "playerctl open \(uri): \(refused)")
            #expect(try bus.playerctl(["status"]).output == "Playing")
        }
        #expect(try bus.playerctl(["open", next.absoluteString]).status == 0)
        #expect(await waitUntil(timeout: .seconds(5)) { (try? bus.playerctl(["metadata", "xesam:title"]).output) == "next.wav" })
        #expect(try await player.exitStatus(within: .seconds(20)) == 0, "stderr: \(player.stderr)")
        let loaded = Fixtures.events(events, named: "lesson-loaded")
        #expect(loaded.count == 1 && loaded.first?["by"] as? String == "mpris" && (loaded.first?["lesson"] as? String)?.hasSuffix("next.wav") == true, "\(loaded)")

        let audio = try WAVFile(wav)
        let windows = stride(from: 0.0, to: audio.seconds - 0.05, by: 0.05).filter { audio.rms(from: $0, to: $0 + 0.05) > -30 }
        let low = Double(windows.filter { Self.power(audio, at: 440, from: $0) > Self.power(audio, at: 1000, from: $0) }.count) * 0.05
        let high = Double(windows.count) * 0.05 - low
        print("FIGURE OpenUri: first lesson heard \(low) s (cut short), the next one \(high) s (of 4)")
        #expect(abs(high - 4) < 0.4, "the next lesson should play whole: heard \(high) s of 4")
        #expect(low > 0.8 && low < 4, "the first lesson should stop when the next is loaded: heard \(low) s of 6")
    }

    @Test("--mpris without a session bus is refused with what to do; --no-mpris exports nothing even with one")
    func explicitChoice() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2)
        let refused = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--mpris", "--no-stdin"], in: folder,
                                                  environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(folder.path)/no-bus-here"])
        #expect(refused.status == 1 && refused.stderr.contains("DBUS_SESSION_BUS_ADDRESS"), "exit \(refused.status); stderr: \(refused.stderr)")

        let bus = try PrivateSessionBus(in: folder)
        defer { bus.stop() }
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--output", "null", "--no-mpris", "--events", events.path, "--no-stdin"], in: folder,
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty })
        #expect((try bus.playerctl(["-l"]).output).contains("classroom_player") == false)
        #expect(try await player.exitStatus(within: .seconds(15)) == 0)
        #expect(Fixtures.events(events, named: "mpris-exported").isEmpty)
    }

    /// Runs sox to the end.
    static func sox(_ arguments: [String]) throws {
        let process = try Fixtures.start("/usr/bin/sox", arguments)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("sox \(arguments.joined(separator: " "))") }
    }

    /// Goertzel power of `frequency` in the 50 ms of channel 0 from `start`.
    static func power(_ audio: WAVFile, at frequency: Double, from start: Double) -> Double {
        let lower = Int(start * Double(audio.rate)), upper = min(audio.samples.count, lower + audio.rate / 20)
        guard upper > lower else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(audio.rate))
        var previous = 0.0, beforePrevious = 0.0
        for sample in audio.samples[lower..<upper] {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }
}
