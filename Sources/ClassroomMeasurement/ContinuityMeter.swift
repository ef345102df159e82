import GStreamer

/// Counts what breaks a continuous signal, buffer by buffer as it passes (GSTREAMER-NOTES §8b):
/// timestamp gaps (a buffer not starting where the previous one ended, beyond 1 µs), DISCONT
/// flags, and clicks — sample-to-sample jumps on channel 0 beyond what the test signal's own
/// slope allows. Keeps counters only, so it can watch a run of any length.
public struct ContinuityMeter: Sendable {
    /// The largest sample step, in S16 units, that is not a click.
    public let clickLimit: Int
    /// Channels per frame of the measured audio.
    public let channels: Int
    /// Buffers seen.
    public private(set) var buffers = 0
    /// Buffers that did not start where the previous one ended.
    public private(set) var gaps = 0
    /// Buffers after the first flagged DISCONT.
    public private(set) var discontinuities = 0
    /// Where the clicks were: the PTS of each buffer holding one.
    public private(set) var clickTimes: [ClockTime] = []
    private var expectedNext: ClockTime??
    private var previousSample: Int16?

    /// A meter for interleaved S16 audio with `channels` channels.
    public init(clickLimit: Int, channels: Int) {
        self.clickLimit = clickLimit
        self.channels = channels
    }

    /// The click limit for a sum of sines given as (peak amplitude 0…1, frequency in Hz): 1.5 ×
    /// the largest step their sum can make between two samples at `rate`.
    public static func clickLimit(sines: [(amplitude: Double, frequency: Double)], rate: Int = 48_000) -> Int {
        let slope = sines.reduce(0.0) { $0 + $1.amplitude * 2 * Double.pi * $1.frequency / Double(rate) }
        return Int((slope * 32_768 * 1.5).rounded(.up))
    }

    /// Clicks so far.
    public var clicks: Int { clickTimes.count }

    /// Takes the next buffer.
    public mutating func add(pts: ClockTime?, duration: ClockTime?, flags: BufferFlags, samples: [Int16]) {
        if let expected = expectedNext {
            if let expected, let pts {
                let delta = pts > expected ? pts - expected : expected - pts
                if delta > .microseconds(1) { gaps += 1 }
            } else {
                gaps += 1
            }
            if flags.contains(.discont) { discontinuities += 1 }
            var index = 0
            while index < samples.count {
                let value = samples[index]
                if let previousSample, abs(Int(value) - Int(previousSample)) > clickLimit { clickTimes.append(pts ?? .zero) }
                previousSample = value
                index += channels
            }
        } else {
            // The first buffer only anchors the measurement.
            var index = 0
            while index < samples.count { previousSample = samples[index]; index += channels }
        }
        buffers += 1
        expectedNext = .some(pts.flatMap { pts in duration.map { pts + $0 } })
    }

    /// Takes the next buffer.
    public mutating func add(_ buffer: Buffer) {
        add(pts: buffer.pts, duration: buffer.duration, flags: buffer.flags, samples: buffer.int16Samples())
    }
}
