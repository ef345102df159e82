import GStreamer

/// How late pushes arrived against the place their timeline kept for them, in 1 ms bins: what the
/// mixer's wait has to cover for that feed (it takes a push up to its wait and one block late).
/// The measured "mix" stage of a mouth-to-ear budget, next to the wait that is configured.
public struct PushLateness: Sendable, Hashable {
    /// Bins of 1 ms from 0; lateness beyond the last counts in it (a stall the timeline re-anchors).
    static let bins = 200
    private var counts = [Int](repeating: 0, count: PushLateness.bins)
    /// Pushes counted.
    public private(set) var count = 0
    /// The latest push seen.
    public private(set) var largest = ClockTime.zero

    /// Counts a push that arrived `late` after its place (zero when it came early).
    mutating func add(_ late: ClockTime) {
        counts[min(Self.bins - 1, Int(late.nanoseconds / 1_000_000))] += 1
        count += 1
        largest = max(largest, late)
    }

    /// The lateness `fraction` (0…1) of the pushes stayed within, to the ms above; nil before any push.
    public func percentile(_ fraction: Double) -> ClockTime? {
        guard count > 0 else { return nil }
        let wanted = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (bin, n) in counts.enumerated() {
            seen += n
            if seen >= wanted { return .milliseconds(bin + 1) }
        }
        return .milliseconds(Self.bins)
    }
}
