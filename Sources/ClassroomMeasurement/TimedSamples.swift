import GStreamer
import Synchronization

/// Mono samples recorded by timestamp on a streaming thread, assembled in time order afterwards.
final class TimedSamples: Sendable {
    private let blocks = Mutex<[(time: ClockTime, samples: [Int16])]>([])

    func record(_ samples: [Int16], at time: ClockTime) { blocks.withLock { $0.append((time, samples)) } }

    /// The samples from `origin` on at `rate`, each block placed by its timestamp; gaps are silence.
    func assembled(from origin: ClockTime, rate: Int) -> [Int16] {
        let placed = blocks.withLock { $0 }.compactMap { block -> (start: Int, samples: [Int16])? in
            guard block.time >= origin else { return nil }
            return (Int((block.time.nanoseconds - origin.nanoseconds) * UInt64(rate) / 1_000_000_000), block.samples)
        }
        let count = placed.map { $0.start + $0.samples.count }.max() ?? 0
        var out = [Int16](repeating: 0, count: count)
        for block in placed { out.replaceSubrange(block.start..<block.start + block.samples.count, with: block.samples) }
        return out
    }
}
