import GStreamer

/// The last few seconds of a 48 kHz signal at 8 kHz, placed by timestamp: what the echo-path
/// estimator correlates. Gaps read as silence; only a bounded tail is kept.
struct DecimatedHistory: Sendable {
    /// 48 kHz / 6: speech below 4 kHz is what the correlation needs, at a sixth of the cost.
    static let factor = 6
    static let rate = 48_000 / factor
    static let samplePeriod = 1_000_000_000 / UInt64(rate)

    private(set) var samples: [Float] = []
    /// The time of `samples[0]`, in ns.
    private(set) var start: UInt64 = 0
    let capacity: Int

    init(seconds: Double) { capacity = Int(seconds * Double(Self.rate)) }

    /// The time just after the newest sample.
    var end: UInt64 { start + UInt64(samples.count) * Self.samplePeriod }

    /// Whether nothing is held yet (or since `clear`).
    var isEmpty: Bool { samples.isEmpty }

    /// Forgets everything held: the next append starts the history afresh at its own time.
    mutating func clear() {
        samples = []
        start = 0
    }

    /// Adds 48 kHz S16 audio of `channels` interleaved channels whose first sample is at `time` (ns).
    mutating func append(_ interleaved: [Int16], channels: Int, at time: UInt64) {
        let frames = interleaved.count / max(channels, 1)
        let count = frames / Self.factor
        guard count > 0 else { return }
        var decimated = [Float](repeating: 0, count: count)
        let scale = 1 / Float(32_768 * Self.factor * channels)
        for index in 0..<count {
            var sum: Int = 0
            let base = index * Self.factor * channels
            for offset in 0..<(Self.factor * channels) { sum += Int(interleaved[base + offset]) }
            decimated[index] = Float(sum) * scale
        }
        if samples.isEmpty || time + Self.samplePeriod < start || time > end + UInt64(capacity) * Self.samplePeriod {
            start = time
            samples = decimated
        } else {
            // Place by timestamp: a late buffer overwrites, a gap is filled with silence.
            let position = Int((Int64(time) - Int64(start)) / Int64(Self.samplePeriod))
            if position > samples.count { samples += [Float](repeating: 0, count: position - samples.count) }
            let from = max(position, 0)
            let skip = from - position
            let overlap = min(samples.count - from, decimated.count - skip)
            if overlap > 0 { samples.replaceSubrange(from..<(from + overlap), with: decimated[skip..<(skip + overlap)]) }
            if skip + max(overlap, 0) < decimated.count { samples += decimated[(skip + max(overlap, 0))...] }
        }
        if samples.count > capacity {
            let drop = samples.count - capacity
            samples.removeFirst(drop)
            start += UInt64(drop) * Self.samplePeriod
        }
    }

    /// `count` samples from `time` (ns), or nil when not all of them are held.
    func segment(from time: UInt64, count: Int) -> [Float]? {
        guard time >= start else { return nil }
        let first = Int((time - start) / Self.samplePeriod)
        guard first + count <= samples.count else { return nil }
        return Array(samples[first..<(first + count)])
    }
}
