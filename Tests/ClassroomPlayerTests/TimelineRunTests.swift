import Foundation
import Testing

@Suite("classroom-player: an unattended timeline into a WAV", .serialized)
struct TimelineRunTests {
    @Test("mic, duck, call volume and disconnect: the WAV's levels follow the steps and the events say what happened")
    func fullTimeline() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 7, volume: 0.1)        // −23.0 dBFS RMS
        let script = folder.appendingPathComponent("timeline.json")
        try """
            [{"at": 1.0, "do": "mic", "on": true},
             {"at": 2.0, "do": "duck", "on": true},
             {"at": 3.5, "do": "duck", "on": false},
             {"at": 4.5, "do": "volume", "channel": "call", "value": 0.5},
             {"at": 5.5, "do": "mic", "on": false}]
            """.write(to: script, atomically: true, encoding: .utf8)
        let wav = folder.appendingPathComponent("out/mix.wav")
        let events = folder.appendingPathComponent("events.jsonl")
        let result = try await PlayerProcess.run(["play", lesson.path, "--mic", Fixtures.sample("student-mic.ogg"), "--script", script.path,
                                                  "--output", "wav:\(wav.path)", "--events", events.path], in: folder, timeout: .seconds(40))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Wrote \(wav.path): "))
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\r"), "no progress line when stdout is not a terminal")

        let audio = try WAVFile(wav)
        #expect(audio.headerMatchesFile)
        let start = try #require(audio.onset(above: -40))    // where the lesson began in the WAV (t = 0 of the timeline, ± the engine latency)
        func level(_ from: Double, _ to: Double) -> Double { audio.rms(from: start + from, to: start + to) }
        let before = level(0.3, 0.9), micOn = level(1.4, 1.9), ducked = level(2.6, 3.4), restored = level(4.1, 4.4)
        let call = level(5.0, 5.4), after = level(6.1, 6.8)
        let ended = Fixtures.events(events, named: "stopped").first
        print("FIGURE timeline levels (dBFS): before \(before), mic on \(micOn), ducked \(ducked), restored \(restored), call 0.5 \(call), mic off \(after); WAV \(audio.seconds) s, lesson onset \(start) s; "
              + "the lesson's timeline resynced \(ended?["lesson_resyncs"] ?? "-") times, \(ended?["lesson_dropped_pushes"] ?? "-") pushes dropped")
        #expect(abs(before - -23.0) < 0.5)
        #expect(abs(micOn - before) < 0.2)            // mic-connect keeps the courseware level (call volume 1 = media volume 1)
        #expect(abs(ducked - before - -20) < 1.0)     // the duck: −20 dB
        #expect(abs(restored - before) < 0.3)
        #expect(abs(call - before - -6.02) < 0.5)     // call volume 0.5 while the microphone is connected
        #expect(abs(after - before) < 0.3)            // disconnected: back to media volume 1
        #expect(audio.seconds > 6.5 && audio.seconds < 9)

        let steps = Fixtures.events(events, named: "step")
        #expect(steps.count == 5)
        #expect(steps.allSatisfy { $0["ok"] as? Bool == true }, "\(steps)")
        #expect(Fixtures.events(events, named: "ducking-changed").map { $0["ducked"] as? Bool } == [true, false])
        #expect(Fixtures.events(events, named: "volume-changed").contains { $0["channel"] as? String == "call" && $0["value"] as? Double == 0.5 })
        let configurations = Fixtures.events(events, named: "configuration-changed").compactMap { ($0["configuration"] as? [String: Any])?["mode"] as? String }
        #expect(configurations.contains("voiceChat"))
        let microphone = Fixtures.events(events, named: "microphone")
        #expect(microphone.first?["connected"] as? Bool == true)
        let frames = try #require(microphone.last?["frames"] as? Double)
        #expect(frames > 350 && frames < 500)          // 4.5 s of 10 ms processed frames went up the uplink
        #expect(Fixtures.events(events, named: "lesson-ended").count == 1)
        let stopped = try #require(Fixtures.events(events, named: "stopped").first)
        #expect(stopped["reason"] as? String == "completed")
        #expect(stopped["exit"] as? Double == 0)
        #expect(Fixtures.events(events, named: "alarm").isEmpty, "\(Fixtures.events(events, named: "alarm"))")
    }
}
