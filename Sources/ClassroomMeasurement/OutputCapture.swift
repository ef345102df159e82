import ClassroomEngine
import Foundation
import GStreamer
import Synchronization

/// Everything that reaches the engine's output sink, kept in memory: timestamps, flags and
/// samples. For runs of seconds; a long run counts with a `ContinuityMeter` instead.
public final class OutputCapture: Sendable {
    /// One buffer as it reached the output.
    public struct Chunk: Sendable {
        /// Its timestamp (running time after the live mixer).
        public let pts: ClockTime?
        /// Its duration.
        public let duration: ClockTime?
        /// Its flags.
        public let flags: BufferFlags
        /// Its interleaved samples.
        public let samples: [Int16]
    }

    private let chunks = Mutex<[Chunk]>([])
    private let probe = Mutex<PadProbe?>(nil)
    /// The output's format.
    public let format: AudioFormat

    /// Starts capturing `engine`'s output.
    public init(_ engine: AudioEngine) throws(EngineError) {
        format = EngineGraph.outputFormat
        let probe = try engine.tapOutput { [weak self] buffer in
            let chunk = Chunk(pts: buffer.pts, duration: buffer.duration, flags: buffer.flags, samples: buffer.int16Samples())
            self?.chunks.withLock { $0.append(chunk) }
        }
        self.probe.withLock { $0 = probe }
    }

    /// Stops capturing.
    public func stop() { probe.withLock { $0?.remove(); $0 = nil } }

    /// Chunks so far.
    public var all: [Chunk] { chunks.withLock { $0 } }

    /// Waits (bounded) until the capture reaches running time `time`.
    public func wait(until time: ClockTime, timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let last = chunks.withLock({ $0.last?.pts }), last >= time { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// RMS in dBFS of channel 0 over chunks whose PTS lies in `range`.
    public func rms(in range: Range<ClockTime>) -> Double {
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

    /// The captured chunks run through a `ContinuityMeter` with `clickLimit`.
    public func continuity(clickLimit: Int = Int(Int16.max)) -> ContinuityMeter {
        var meter = ContinuityMeter(clickLimit: clickLimit, channels: format.channels)
        for chunk in all { meter.add(pts: chunk.pts, duration: chunk.duration, flags: chunk.flags, samples: chunk.samples) }
        return meter
    }

    /// Sample-to-sample jumps on channel 0 larger than `limit` (a click).
    public func clicks(limit: Int) -> Int { continuity(clickLimit: limit).clicks }
}
