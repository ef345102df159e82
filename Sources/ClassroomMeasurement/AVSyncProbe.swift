import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// A/V sync through the mixed stream, measured: the beep-and-flash lesson played by a
/// SessionController's LessonPlayer into a headless engine; when each flash is presented vs when
/// its beep plays at the output (both on the GStreamer system clock). Shared by the benchmark and
/// the lesson tests.
public enum AVSyncProbe {
    /// Plays the lesson (at `rate` from its start) and returns each flash's offset (ms, audio −
    /// video), the courseware input's timeline re-anchorings, and how many flashes and beeps were seen.
    public static func offsets(rate: Double = 1, logger: Logger) async throws -> (offsets: [Double], resyncs: Int, flashes: Int, beeps: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-beep-flash-\(getpid())-\(UUID().uuidString).webm").path
        try BeepFlashLesson.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let controller = try SessionController(output: .discard, logger: logger)
        try controller.start()
        defer { controller.stop() }
        let engine = controller.engine
        let clock = try Clock.system()
        guard let running = engine.runningTime else { throw MeasurementError("the engine has no running time") }
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
        if rate != 1 { try lesson.setRate(rate) }
        let deadline = ContinuousClock.now + .seconds(10 / rate + 10)
        while ContinuousClock.now < deadline, (lesson.position ?? .zero) < .seconds(9.9) {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(400))   // the last beep's way through the engine
        lesson.stop()

        let latency = engine.outputLatency
        let audio = events.audioOnsets.withLock { $0 }.map { engineBase + $0 + latency }
        let video = events.flashes.withLock { $0 }
        // Flashes and beeps come 1 s of lesson apart: a beep within half that is this flash's.
        let window = 0.5 / rate
        var offsets: [Double] = []
        for flash in video {
            guard let nearest = audio.min(by: { distance($0, flash) < distance($1, flash) }), distance(nearest, flash) < window else { continue }
            offsets.append((Double(nearest.nanoseconds) - Double(flash.nanoseconds)) / 1e6)
        }
        guard offsets.count >= 5 else {
            throw MeasurementError("only \(offsets.count) flash/beep pairs (\(video.count) flashes, \(audio.count) beeps)")
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
