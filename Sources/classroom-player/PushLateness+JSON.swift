import ClassroomEngine

/// How late a feed's pushes reached the mix, for `status` and the `stopped` event: the p99 and the
/// latest, in ms (absent before the first push that continued the feed).
extension PushLateness {
    var fields: [(String, JSON)] {
        guard let p99 = percentile(0.99) else { return [] }
        return [("late_p99_ms", .number(Double(p99.milliseconds))), ("late_max_ms", .number(Double(largest.nanoseconds) / 1e6))]
    }
}
