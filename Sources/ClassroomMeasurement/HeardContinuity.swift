/// How a steady test tone came out where the listener is: dropouts (10 ms blocks far below the
/// tone's level) and clicks (sample steps steeper than the tone allows) after it first sounded.
public struct HeardContinuity: Sendable {
    /// Seconds judged: from `start`, and `settle` after the tone first sounded, to the end.
    public let seconds: Double
    /// 10 ms blocks whose RMS fell more than 6 dB under the tone's.
    public let dropouts: Int
    /// Where the clicks began, in seconds from the start of the recording.
    public let clickTimes: [Double]
    /// Where the dropouts were, in seconds from the start of the recording.
    public let dropoutTimes: [Double]

    /// Judges `samples` (mono, 48 kHz) of a sine of `amplitude` (0…1 peak) at `frequency` from
    /// sample `start` on, leaving out the first `settle` seconds after it first sounded (the
    /// stream and the recording starting on the server) and the last 10 ms block, which the
    /// recording's stop may cut.
    public init(_ samples: [Int16], amplitude: Double, frequency: Double, from start: Int = 0, settle: Double = 0.3) {
        let block = MonitorRecording.rate / 100
        let toneRMS = amplitude / 2.squareRoot() * 32_768
        let blocks = samples.count / block
        func rms(_ index: Int) -> Double {
            let slice = samples[index * block..<(index + 1) * block]
            return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block)).squareRoot()
        }
        let first = (0..<blocks).first { rms($0) > toneRMS / 2 } ?? blocks
        let from = min(blocks, max(first + Int(settle * 100), start / block))
        let to = max(from, blocks - 1)
        var dropoutTimes: [Double] = []
        for index in from..<to where rms(index) < toneRMS / 2 { dropoutTimes.append(Double(index) / 100) }
        let limit = Double(ContinuityMeter.clickLimit(sines: [(amplitude, frequency)], rate: MonitorRecording.rate))
        // One click per event: the steep steps of one skip or one overlap, within 2 ms, count once.
        var clickTimes: [Double] = []
        var lastStep = -Int.max / 2
        if to > from {
            for index in (from * block + 1)..<(to * block) where abs(Double(samples[index]) - Double(samples[index - 1])) > limit {
                if index - lastStep > Self.clickMerge { clickTimes.append(Double(index) / Double(MonitorRecording.rate)) }
                lastStep = index
            }
        }
        seconds = Double(to - from) / 100
        dropouts = dropoutTimes.count
        self.dropoutTimes = dropoutTimes
        self.clickTimes = clickTimes
    }

    /// Steep steps closer than this (2 ms, in samples) are one click.
    static let clickMerge = MonitorRecording.rate / 500

    /// Clicks in the judged part.
    public var clicks: Int { clickTimes.count }
}
