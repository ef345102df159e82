import GStreamer
import Synchronization

/// Where a stream's timestamps leave contiguity: each buffer whose PTS is not where the one before
/// ended (by more than `tolerance`), or that is flagged DISCONT. Written on a streaming thread.
public final class TimestampSteps: Sendable {
    /// One step: when (the buffer's PTS), how far from contiguous (positive: later), and whether it said DISCONT.
    public struct Step: Sendable {
        public let at: ClockTime
        public let milliseconds: Double
        public let discont: Bool
    }

    private let tolerance: ClockTime
    private let state = Mutex<(end: ClockTime?, steps: [Step])>((nil, []))

    public init(tolerance: ClockTime = .milliseconds(1)) { self.tolerance = tolerance }

    /// One buffer, as it passed.
    public func record(_ buffer: Buffer) {
        guard let pts = buffer.pts else { return }
        let discont = buffer.flags.contains(.discont)
        state.withLock { state in
            defer { state.end = buffer.duration.map { pts + $0 } }
            guard let end = state.end else { return }
            let off = Double(Int64(pts.nanoseconds) - Int64(end.nanoseconds)) / 1e6
            if discont || abs(off) > Double(tolerance.nanoseconds) / 1e6 { state.steps.append(Step(at: pts, milliseconds: off, discont: discont)) }
        }
    }

    /// The steps so far, in order.
    public var steps: [Step] { state.withLock { $0.steps } }
}
