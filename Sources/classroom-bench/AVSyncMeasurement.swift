import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging
import Synchronization

/// A/V sync through the mixed stream: a beep-and-flash lesson played by the engine's
/// LessonPlayer; when each flash is presented vs when its beep plays at the output.
enum AVSyncMeasurement {
    static let measure = "A/V sync through the mixed stream (audio − video)"
    static let baseline = "ITU-R BT.1359 detectability threshold: +45 ms (audio early) / −125 ms (audio late)"
    static let goal = "|offset| ≤ 20 ms"
    static let method = """
        A 10 s VP8+Vorbis WebM written at run time (a white flash and a 50 ms 1 kHz beep at 0.5 s, 1.5 s, …, 9.5 s) is \
        played by the SessionController's LessonPlayer into a headless engine (fakesink sync=true). Video: a VideoFrameTap \
        (appsink sync=true, ts-offset = the engine's output latency, as the kiosk's video sink), the clock time when a \
        frame turns white is taken in its callback. Audio: the output tap finds the first sample above 0.1 FS after ≥ 300 ms \
        of quiet; it plays at the engine's base time + its running time + the 100 ms pipeline latency (the sink syncs to \
        exactly that). Both are GStreamer system-clock (CLOCK_MONOTONIC) times. Positive = audio later than picture. \
        Median over the flashes.
        """

    static func rows(logger: Logger) async -> [BenchmarkRow] {
        do {
            let (offsets, resyncs, flashes, beeps) = try await measureOffsets(logger: logger)
            let median = offsets.median
            let worst = offsets.max { abs($0) < abs($1) } ?? .nan
            let detail = " \(BeepFlashLesson.events.count) flashes in the lesson; \(flashes) flashes and \(beeps) beeps seen, \(offsets.count) paired within ±0.5 s. Offsets in flash order: \(offsets.map { formatted($0, "ms") }.joined(separator: ", ")); the courseware input re-anchored its timeline \(resyncs) times (pushes arriving > 40 ms from where the previous ended)."
            return [BenchmarkRow(measure: measure, value: median, unit: "ms", baseline: baseline, goal: goal,
                                 pass: abs(median) <= 20, runs: offsets.count, method: method + detail),
                    BenchmarkRow(measure: "A/V sync, worst single flash (audio − video)", value: worst, unit: "ms", baseline: baseline, goal: goal,
                                 pass: abs(worst) <= 20, runs: offsets.count,
                                 method: "The largest |offset| among the flashes of the row above. The first flash comes 0.5 s after play(): frames decoded while the lesson starts can be handed to the tap at once (measured up to 0.5 s in the engine test); in development runs the first beep was also seen 0.1–0.3 s late while the later ones were within 0.5 ms. Either shows here as a large first offset." + detail)]
        } catch {
            return [.notMeasured(measure, unit: "ms", baseline: baseline, goal: goal, method: method, error: error)]
        }
    }

    private static func measureOffsets(logger: Logger) async throws -> (offsets: [Double], resyncs: Int, flashes: Int, beeps: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-beep-flash-\(getpid()).webm").path
        try BeepFlashLesson.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let controller = try SessionController(output: .discard, logger: logger)
        try controller.start()
        defer { controller.stop() }
        let engine = controller.engine
        let clock = try Clock.system()
        guard let running = engine.runningTime else { throw BenchError("the engine has no running time") }
        let engineBase = clock.time - running
        let events = SyncEvents()
        let tap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts else { return }
            events.scanAudio(pts: pts, samples: buffer.int16Samples(), channels: EngineGraph.outputFormat.channels)
        }
        defer { tap?.remove() }
        let frames = VideoFrameTap(format: "GRAY8") { sample in
            let now = clock.time
            guard let bytes = sample.buffer?.bytes(), !bytes.isEmpty else { return }
            let mean = Double(bytes.reduce(0) { $0 + Int($1) }) / Double(bytes.count)
            events.scanVideo(at: now, meanLuma: mean)
        }
        let lesson = try controller.loadLesson(uri: URL(fileURLWithPath: path).absoluteString, video: .frames(frames))
        try lesson.play()
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, (lesson.position ?? .zero) < .seconds(9.9) {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(400))   // the last beep's way through the engine
        lesson.stop()

        let latency = engine.outputLatency
        let audio = events.audioOnsets.withLock { $0 }.map { engineBase + $0 + latency }
        let video = events.flashes.withLock { $0 }
        var offsets: [Double] = []
        for flash in video {
            // Flashes and beeps come 1 s apart: a beep within ±0.5 s is this flash's.
            guard let nearest = audio.min(by: { distance($0, flash) < distance($1, flash) }), distance(nearest, flash) < 0.5 else { continue }
            offsets.append((Double(nearest.nanoseconds) - Double(flash.nanoseconds)) / 1e6)
        }
        guard offsets.count >= 5 else {
            throw BenchError("only \(offsets.count) flash/beep pairs (\(video.count) flashes, \(audio.count) beeps)")
        }
        return (offsets, engine.input(id: "courseware")?.timelineResyncs ?? 0, video.count, audio.count)
    }

    private static func distance(_ a: ClockTime, _ b: ClockTime) -> Double { abs(a.seconds - b.seconds) }
}

/// Beep onsets (running time at the output) and flash presentations (clock time), collected on streaming threads.
private final class SyncEvents: Sendable {
    let audioOnsets = Mutex<[ClockTime]>([])
    let flashes = Mutex<[ClockTime]>([])
    private let audioState = Mutex<(quietSamples: Int, seen: Bool)>((0, false))
    private let videoState = Mutex<Bool>(false)   // the last frame was white

    /// A beep starts at the first sample above 0.1 FS after 300 ms below it.
    func scanAudio(pts: ClockTime, samples: [Int16], channels: Int) {
        audioState.withLock { state in
            var index = 0
            while index < samples.count {
                if abs(Int(samples[index])) > 3_277 {
                    if state.quietSamples >= 14_400 || !state.seen {
                        let onset = pts + ClockTime.frames(index / channels, rate: 48_000)
                        audioOnsets.withLock { $0.append(onset) }
                    }
                    state.quietSamples = 0
                    state.seen = true
                } else {
                    state.quietSamples += 1
                }
                index += channels
            }
        }
    }

    /// A flash is a white frame after a dark one.
    func scanVideo(at time: ClockTime, meanLuma: Double) {
        let white = meanLuma > 128
        let rising = videoState.withLock { last in defer { last = white }; return white && !last }
        if rising { flashes.withLock { $0.append(time) } }
    }
}
