import GStreamer
import Synchronization

/// Contiguous timestamps for audio pushed in real time: each push continues where the previous
/// one ended when it arrives within `tolerance` of that point, so arrival jitter never tears the
/// audio; otherwise (a start, a pause, a stall) it is re-anchored to "now" and counted.
public final class PushTimeline: Sendable {
    /// How far a push may arrive from where the previous one ended and still continue it.
    let tolerance: ClockTime
    private let next = Mutex<ClockTime?>(nil)
    private let resyncs = Atomic<Int>(0)

    public init(tolerance: ClockTime) { self.tolerance = tolerance }

    /// The timestamp for `duration` of audio arriving at running time `now`.
    public func stamp(now: ClockTime, duration: ClockTime) -> ClockTime {
        next.withLock { next in
            let pts: ClockTime
            if let expected = next, (expected > now ? expected - now : now - expected) <= tolerance {
                pts = expected
            } else {
                if next != nil { resyncs.add(1, ordering: .relaxed) }
                pts = now
            }
            next = pts + duration
            return pts
        }
    }

    /// Accepts an explicit timestamp unless it lies more than `tolerance` before audio already
    /// placed; returns how far back it lay when refused.
    public func place(_ pts: ClockTime, duration: ClockTime) -> ClockTime? {
        next.withLock { next -> ClockTime? in
            if let expected = next, pts + tolerance < expected { return expected - pts }
            next = pts + duration
            return nil
        }
    }

    /// Starts over: the next push is placed at its arrival, deliberately (not counted as a break):
    /// a source that changed its own delay (an adaptive jitter buffer) is heard with the new one.
    public func restart() { next.withLock { $0 = nil } }

    /// How many pushes were re-anchored to the running time: each is a break in the audio.
    public var resyncCount: Int { resyncs.load(ordering: .relaxed) }
}
