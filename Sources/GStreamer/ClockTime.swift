import CGStreamer

/// A GStreamer time in nanoseconds (`GstClockTime`); `GST_CLOCK_TIME_NONE` is represented as `nil` in a `ClockTime?`.
public struct ClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds.
    public var nanoseconds: UInt64

    /// A time of `nanoseconds` ns.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// Converts a raw `GstClockTime`; nil for `GST_CLOCK_TIME_NONE`.
    init?(raw: GstClockTime) {
        guard raw != ClockTime.none else { return nil }
        nanoseconds = UInt64(raw)
    }

    /// Converts a signed `GstClockTimeDiff`-style value; nil when negative.
    init?(signed: Int64) {
        guard signed >= 0 else { return nil }
        nanoseconds = UInt64(signed)
    }

    /// The raw value of `GST_CLOCK_TIME_NONE`.
    static let none: GstClockTime = .max

    /// The time as a raw `GstClockTime`.
    var gst: GstClockTime { GstClockTime(nanoseconds) }

    /// Zero.
    public static let zero = ClockTime(nanoseconds: 0)

    /// `n` seconds (fractions allowed): negative and NaN are 0, beyond about 584 years the largest valid time (never a trap).
    public static func seconds(_ n: Double) -> ClockTime {
        let nanoseconds = (n * 1e9).rounded()
        guard nanoseconds > 0 else { return ClockTime(nanoseconds: 0) }
        return ClockTime(nanoseconds: nanoseconds < 1.8e19 ? UInt64(nanoseconds) : UInt64.max - 1)
    }
    /// `n` milliseconds.
    public static func milliseconds(_ n: Int) -> ClockTime { ClockTime(nanoseconds: UInt64(max(0, n)) * 1_000_000) }
    /// `n` microseconds.
    public static func microseconds(_ n: Int) -> ClockTime { ClockTime(nanoseconds: UInt64(max(0, n)) * 1_000) }
    /// The duration of `frames` audio frames at `rate` Hz, rounded to the nearest nanosecond.
    public static func frames(_ frames: Int, rate: Int) -> ClockTime {
        ClockTime(nanoseconds: (UInt64(max(0, frames)) * 1_000_000_000 + UInt64(rate) / 2) / UInt64(max(1, rate)))
    }

    /// The time in seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }
    /// The time in whole milliseconds (truncated).
    public var milliseconds: Int { Int(nanoseconds / 1_000_000) }
    /// The time in whole microseconds (truncated): the unit of audio sinks' `buffer-time` and `latency-time`.
    public var microseconds: Int64 { Int64(nanoseconds / 1_000) }

    /// "h:mm:ss.nnnnnnnnn", as GStreamer prints times.
    public var description: String {
        let total = nanoseconds
        let h = total / 3_600_000_000_000
        let m = (total / 60_000_000_000) % 60
        let s = (total / 1_000_000_000) % 60
        let ns = total % 1_000_000_000
        let nsText = String(ns)
        return "\(h):\(m < 10 ? "0" : "")\(m):\(s < 10 ? "0" : "")\(s).\(String(repeating: "0", count: 9 - nsText.count))\(nsText)"
    }

    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    /// Sum of two times.
    public static func + (lhs: ClockTime, rhs: ClockTime) -> ClockTime { ClockTime(nanoseconds: lhs.nanoseconds + rhs.nanoseconds) }
    /// Difference of two times, clamped at zero.
    public static func - (lhs: ClockTime, rhs: ClockTime) -> ClockTime {
        ClockTime(nanoseconds: lhs.nanoseconds > rhs.nanoseconds ? lhs.nanoseconds - rhs.nanoseconds : 0)
    }
}

extension Optional where Wrapped == ClockTime {
    /// The raw `GstClockTime`, `GST_CLOCK_TIME_NONE` for nil.
    var raw: GstClockTime { self?.gst ?? ClockTime.none }
}
