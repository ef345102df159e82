import Foundation
import Testing

/// `--after-lesson`: what a run does when its lesson ends, heard in its WAV.
@Suite("classroom-player: after the lesson", .serialized)
struct AfterLessonTests {
    @Test("loop: the lesson plays again from its start until the run is stopped, and each loop is an event")
    func loops() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2, volume: 0.1)        // −23.0 dBFS RMS
        let script = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 5.5, "do": "stop"}]"#.write(to: script, atomically: true, encoding: .utf8)
        let wav = folder.appendingPathComponent("mix.wav")
        let events = folder.appendingPathComponent("events.jsonl")
        let result = try await PlayerProcess.run(["play", lesson.path, "--after-lesson", "loop", "--mic", "none", "--script", script.path,
                                                  "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"], in: folder, timeout: .seconds(40))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let audio = try WAVFile(wav)
        let start = try #require(audio.onset(above: -40))
        let first = audio.rms(from: start + 0.3, to: start + 1.8), second = audio.rms(from: start + 2.3, to: start + 3.8)
        // The stop at 5.5 s of the run ends the third round: a lesson that started late (its onset
        // is the WAV's time) leaves less of it, and the window must not reach into the stop.
        let third = audio.rms(from: start + 4.3, to: min(start + 5.2, audio.seconds - 0.3))
        let loops = Fixtures.events(events, named: "lesson-looped").compactMap { $0["count"] as? Double }
        print("FIGURE --after-lesson loop, a 2 s lesson stopped at 5.5 s: loops \(loops), levels \(first), \(second), \(third) dBFS; onset \(start) s, looped at \(Fixtures.events(events, named: "lesson-looped").compactMap { $0["t"] as? Double }) s, WAV \(audio.seconds) s")
        #expect(loops == [1, 2], "\(Fixtures.events(events))")
        #expect(Fixtures.events(events, named: "lesson-ended").count == 2)
        for level in [first, second, third] { #expect(abs(level - -23.0) < 0.5, "the lesson should be heard in each round: \(first), \(second), \(third)") }
        #expect(Fixtures.events(events, named: "stopped").first?["reason"] as? String == "stop-command")
    }

    @Test("stay: the run goes on after the lesson (silence, then the stop), exit: it ends with the lesson")
    func staysOrExits() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2, volume: 0.1)
        let script = folder.appendingPathComponent("timeline.json")
        try #"[{"at": 4.0, "do": "stop"}]"#.write(to: script, atomically: true, encoding: .utf8)
        var seconds: [String: Double] = [:]
        for choice in ["stay", "exit"] {
            let wav = folder.appendingPathComponent("\(choice).wav")
            let events = folder.appendingPathComponent("\(choice).jsonl")
            // The stop step comes after the lesson: with exit the run does not wait for it.
            let arguments = ["play", lesson.path, "--after-lesson", choice, "--mic", "none", "--output", "wav:\(wav.path)", "--events", events.path, "--no-stdin"]
                + (choice == "stay" ? ["--script", script.path] : [])
            let result = try await PlayerProcess.run(arguments, in: folder, timeout: .seconds(40))
            #expect(result.status == 0, "\(choice): stderr: \(result.stderr)")
            seconds[choice] = try WAVFile(wav).seconds
            let reason = Fixtures.events(events, named: "stopped").first?["reason"] as? String
            #expect(reason == (choice == "stay" ? "stop-command" : "completed"), "\(choice): \(reason ?? "no stopped event")")
            #expect(Fixtures.events(events, named: "lesson-ended").count == 1)
        }
        print("FIGURE a 2 s lesson: --after-lesson stay (stopped at 4 s) wrote \(seconds["stay"] ?? 0) s, exit \(seconds["exit"] ?? 0) s")
        #expect((seconds["stay"] ?? 0) > 3.8, "stay should have kept the class going to the stop at 4 s")
        #expect((seconds["exit"] ?? 9) < 3.0, "exit should end with the 2 s lesson")
    }
}
