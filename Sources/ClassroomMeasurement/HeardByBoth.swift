/// Continuity judged from two recordings of one device's monitor: what the device played is in
/// both, while a recording stream's own loss is in one only. PipeWire 0.3.65 under a CPU hog gave
/// one record stream a 256-sample quantum of silence, or a skip, that a second recording of the
/// same monitor did not have (`scripts/measure/skew-clicks.py`, parec beside pulsesrc), so one
/// recording alone blamed the player for its recorder's loss. A click or dropout counts here when
/// both recordings have it within `tolerance`.
public struct HeardByBoth: Sendable {
    /// Each recording's own judgement.
    public let first: HeardContinuity
    public let second: HeardContinuity
    /// Seconds judged in both.
    public let seconds: Double
    /// Clicks and dropouts both recordings heard, in seconds from their judged starts (the first's times).
    public let clickTimes: [Double]
    public let dropoutTimes: [Double]

    /// Judges `first` from sample `firstStart` and `second` from `secondStart`, two recordings of
    /// one monitor whose starts were taken at the same moment, for a sine of `amplitude` at `frequency`.
    public init(_ first: [Int16], from firstStart: Int, _ second: [Int16], from secondStart: Int,
                amplitude: Double, frequency: Double, tolerance: Double = 0.03) {
        self.first = HeardContinuity(first, amplitude: amplitude, frequency: frequency, from: firstStart)
        self.second = HeardContinuity(second, amplitude: amplitude, frequency: frequency, from: secondStart)
        let rate = Double(MonitorRecording.rate)
        func judged(_ times: [Double], _ start: Int) -> [Double] { times.map { $0 - Double(start) / rate } }
        func inBoth(_ a: [Double], _ b: [Double]) -> [Double] { a.filter { time in b.contains { abs($0 - time) <= tolerance } } }
        seconds = min(self.first.seconds, self.second.seconds)
        clickTimes = inBoth(judged(self.first.clickTimes, firstStart), judged(self.second.clickTimes, secondStart))
        dropoutTimes = inBoth(judged(self.first.dropoutTimes, firstStart), judged(self.second.dropoutTimes, secondStart))
    }

    public var clicks: Int { clickTimes.count }
    public var dropouts: Int { dropoutTimes.count }

    /// What each recording heard alone, for a figure: "clicks/dropouts, clicks/dropouts".
    public var eachAlone: String {
        "\(first.clicks)/\(first.dropouts) and \(second.clicks)/\(second.dropouts) clicks/dropouts"
    }
}
