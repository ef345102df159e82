import Foundation
import Logging
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

/// Real signals into the engine and measurements of what comes out.
enum EngineSupport {
    static let logger: Logger = {
        var logger = Logger(label: "engine-test")
        logger.logLevel = .warning
        return logger
    }()

    static func start() throws {
        try GStreamer.initialize()
        if ProcessInfo.processInfo.environment["GST_TRACERS"]?.contains("leaks") == true {
            GStreamer.deinitializeAtExit()
        }
    }

    /// True when `make test` started a PulseAudio server for this run.
    static var hasPulse: Bool { ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1" }
}

/// Pumps a live test signal from its own small pipeline into an engine input, in real time —
/// exactly how the lesson player or an RTC SDK hands PCM over.
final class SignalPump: Sendable {
    private let pipeline: Pipeline
    private let token: SignalHandler
    let pushed = Counter()

    /// `description` is a gst-launch source chain ending in raw audio; an appsink is appended.
    init(_ description: String, into input: AudioInput, format: AudioFormat) throws {
        pipeline = try Pipeline.parse("\(description) ! audioconvert ! audioresample ! \(format.caps) ! appsink name=pump-out sync=\(description.contains("is-live=true") ? "false" : "true")")
        let sink = try pipeline.element(named: "pump-out", as: AppSink.self)
        let pushed = self.pushed
        token = try sink.onNewSample { sample in
            guard let samples = sample.buffer?.int16Samples() else { return }
            if (try? input.push(samples)) != nil { pushed.increment() }
        }
        try pipeline.setState(.playing)
    }

    func stop() { _ = try? pipeline.setState(.null); token.disconnect() }

    /// True once the source has ended (files).
    var finished: Bool {
        (try? pipeline.element(named: "pump-out", as: AppSink.self))?.isEndOfStream == true
    }

    deinit { stop() }
}

/// Everything that reached the output sink: timestamps, flags and samples.
final class OutputCapture: Sendable {
    struct Chunk: Sendable {
        let pts: ClockTime?
        let duration: ClockTime?
        let flags: BufferFlags
        let samples: [Int16]
    }
    private let chunks = Locked<[Chunk]>([])
    private let probe = Locked<PadProbe?>(nil)
    let format: AudioFormat

    init(_ engine: AudioEngine) throws {
        format = EngineGraph.outputFormat
        let chunks = self.chunks
        let probe = try engine.tapOutput { buffer in
            let chunk = Chunk(pts: buffer.pts, duration: buffer.duration, flags: buffer.flags, samples: buffer.int16Samples())
            chunks.withLock { $0.append(chunk) }
        }
        self.probe.withLock { $0 = probe }
    }

    func stop() { probe.withLock { $0?.remove(); $0 = nil } }

    /// Chunks so far.
    var all: [Chunk] { chunks.withLock { $0 } }

    /// Waits (bounded) until the capture reaches running time `time`.
    func wait(until time: ClockTime, timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let last = chunks.withLock({ $0.last?.pts }), last >= time { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// RMS in dBFS of channel 0 over chunks whose PTS lies in `range`.
    func rms(in range: Range<ClockTime>) -> Double {
        var sum = 0.0, count = 0
        for chunk in all {
            guard let pts = chunk.pts, range.contains(pts) else { continue }
            var index = 0
            while index < chunk.samples.count {
                let value = Double(chunk.samples[index]) / 32768
                sum += value * value
                count += 1
                index += format.channels
            }
        }
        return count > 0 ? 10 * log10(max(sum / Double(count), 1e-20)) : -.infinity
    }

    /// Timestamp gaps (a chunk not starting where the previous ended, beyond 1 µs) and DISCONT flags.
    func continuity() -> (gaps: Int, discont: Int, chunks: Int) {
        let list = all
        var gaps = 0
        for (previous, next) in zip(list, list.dropFirst()) {
            guard let p = previous.pts, let d = previous.duration, let n = next.pts else { gaps += 1; continue }
            let expected = p + d
            let delta = n > expected ? n - expected : expected - n
            if delta > .microseconds(1) {
                gaps += 1
                print("GAP after \(p) + \(d) → \(n)")
            }
        }
        let discont = list.dropFirst().filter { $0.flags.contains(.discont) }.count
        return (gaps, discont, list.count)
    }

    /// Sample-to-sample jumps on channel 0 larger than `limit` (a click), after the first chunk.
    func clicks(limit: Int) -> Int { clickTimes(limit: limit).count }

    /// Where the clicks are: the PTS of the chunk each one is in.
    func clickTimes(limit: Int) -> [ClockTime] {
        var clicks: [ClockTime] = []
        var previous: Int16?
        for chunk in all.dropFirst() {
            var index = 0
            while index < chunk.samples.count {
                let value = chunk.samples[index]
                if let previous, abs(Int(value) - Int(previous)) > limit { clicks.append(chunk.pts ?? .zero) }
                previous = value
                index += format.channels
            }
        }
        return clicks
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}


/// Waits, at most `timeout`, for state that changes on another queue (the controller's, a device
/// monitor's) and has no message of its own to wait for; returns whether it came true.
func waitFor(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
