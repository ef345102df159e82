import GStreamer

extension ClockTime {
    /// A Swift `Duration` as a clock time (negative durations are zero).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        self.init(nanoseconds: UInt64(max(0, total)))
    }
}
