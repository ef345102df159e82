import GStreamer
import Synchronization

/// Contiguous timestamps for audio pushed in real time: each push continues where the previous
/// one ended when it arrives within `tolerance` of that point, so arrival jitter never tears the
/// audio; otherwise (a start, a pause, a stall, or a feed running ahead of real time, whose lead
/// would otherwise become latency) it is re-anchored to "now" and counted.
public final class PushTimeline: Sendable {
    /// How far a push may arrive from where the previous one ended and still continue it.
    let tolerance: ClockTime
    /// How far a source's content swings around its arrival by its own making (scaletempo emits
    /// whole strides against its input's timestamps): an anchor is placed that far ahead of "now",
    /// so the content that comes latest is still on time, and a push may lead by twice it.
    public let burst: ClockTime
    /// When set, an anchor falls on a multiple of it (the running time rounded down).
    let grid: ClockTime?
    /// Where the previous push ended, whether `restart` came since (one lock: a push stamped
    /// before a concurrent restart never takes the restart's mark), and how late pushes came.
    private let next = Mutex<(end: ClockTime?, restarted: Bool, lateness: PushLateness)>((nil, false, PushLateness()))
    private let resyncs = Atomic<Int>(0)

    /// With `grid`, audio is anchored on the output grid of a live mixer fed in frames of that
    /// size: each frame then fills exactly one of its output buffers, which it sends as soon as the
    /// frame arrives. Off the grid, every output buffer straddled two frames and waited for the
    /// second: 10 ms more on the uplink (measured 10.2 ms median, 0.1 ms on the grid; WORKAROUNDS §24).
    public init(tolerance: ClockTime, burst: ClockTime = .zero, grid: ClockTime? = nil) {
        self.tolerance = tolerance
        self.burst = burst
        self.grid = grid
    }

    /// The timestamp for `duration` of audio arriving at running time `now`.
    public func stamp(now: ClockTime, duration: ClockTime) -> ClockTime { anchor(now: now, duration: duration).pts }

    /// The timestamp for `duration` of audio arriving at running time `now`, and whether it moved
    /// away from where the previous push ended (after `restart`, or re-anchored after a stall or a
    /// lead): that buffer is marked DISCONT, so the mixer moves the input to its new place. A live
    /// audiomixer keeps a shift under 40 ms contiguous otherwise: the audio after a 30 ms stall
    /// would be mixed 30 ms early, into output already sent, and a jitter buffer's move would never
    /// reach the class (WORKAROUNDS §23).
    public func anchor(now: ClockTime, duration: ClockTime) -> (pts: ClockTime, discont: Bool) {
        next.withLock { next in
            let pts: ClockTime
            var moved = next.restarted
            if let expected = next.end, expected + tolerance >= now, expected <= now + burst + burst + tolerance {
                pts = expected
                next.lateness.add(now > expected ? now - expected : .zero)
            } else {
                if next.end != nil {
                    resyncs.add(1, ordering: .relaxed)
                    moved = true
                }
                let anchor = now + burst
                if let grid, grid > .zero { pts = ClockTime(nanoseconds: anchor.nanoseconds / grid.nanoseconds * grid.nanoseconds) } else { pts = anchor }
            }
            next.end = pts + duration
            next.restarted = false
            return (pts, moved)
        }
    }

    /// Accepts an explicit timestamp unless it lies more than `tolerance` before audio already
    /// placed; returns how far back it lay when refused.
    public func place(_ pts: ClockTime, duration: ClockTime) -> ClockTime? {
        next.withLock { next -> ClockTime? in
            if let expected = next.end, pts + tolerance < expected { return expected - pts }
            next.end = pts + duration
            return nil
        }
    }

    /// Starts over: the next push is placed at its arrival, deliberately (not counted as a break):
    /// a source that changed its own delay (an adaptive jitter buffer) is heard with the new one.
    public func restart() { next.withLock { $0.end = nil; $0.restarted = true } }

    /// How late the pushes that continued the timeline arrived (an anchor is on time by definition).
    public var lateness: PushLateness { next.withLock { $0.lateness } }

    /// How many pushes were re-anchored to the running time: each is a break in the audio.
    public var resyncCount: Int { resyncs.load(ordering: .relaxed) }
}
