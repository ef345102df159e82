import GStreamer
import Synchronization

/// Timestamps for pushed audio that follow on from each other, from a start time.
final class ContiguousTimeline: Sendable {
    private let next = Mutex<ClockTime>(.zero)

    init(start: ClockTime) { next.withLock { $0 = start } }

    /// The timestamp for the next `frames` frames.
    func next(frames: Int, rate: Int) -> ClockTime {
        next.withLock { next in
            defer { next = next + .frames(frames, rate: rate) }
            return next
        }
    }
}
