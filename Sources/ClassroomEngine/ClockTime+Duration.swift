import GStreamer

extension ClockTime {
    /// A Swift `Duration` as a clock time (negative durations are zero).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        self.init(nanoseconds: UInt64(max(0, total)))
    }
}

extension ClockTime {
    /// The absolute difference between two times.
    func distance(to other: ClockTime) -> ClockTime {
        ClockTime(nanoseconds: nanoseconds > other.nanoseconds ? nanoseconds - other.nanoseconds : other.nanoseconds - nanoseconds)
    }
}
