import GStreamer

/// How long an RTP receiver holds packets for late and reordered ones.
public enum JitterBufferSetting: Sendable, Hashable, CustomStringConvertible {
    /// Follows the measured arrival jitter (`JitterBufferPolicy`).
    case adaptive
    /// Always this long (`--jitter-buffer MS`).
    case fixed(ClockTime)

    public var description: String {
        switch self {
        case .adaptive: return "adaptive"
        case .fixed(let delay): return "\(delay.milliseconds) ms"
        }
    }
}

/// Where an adaptive jitter buffer's delay goes: up at once to what the measured jitter needs
/// (a late packet is a concealed one), down slowly once the network has been calm for a while
/// (each step down drops a little audio), never below one packet nor above a ceiling.
struct JitterBufferPolicy {
    /// Where it starts, before the jitter is known: one 20 ms packet (WebRTC's and the uplink's
    /// default), what a LAN needs. A jittery network takes it up within half a second (`enough`
    /// packets, then at once); started at 40 ms, a LAN's buffer took 9-12 s to come down, and the
    /// first words of every class and every rejoin were 20-25 ms later than needed.
    static let start = ClockTime.milliseconds(20)
    /// The most it grows to (a link this jittery needs another fix).
    static let ceiling = ClockTime.milliseconds(200)
    /// Held on top of the measured spread (the scheduling of this end's own threads).
    static let margin = ClockTime.milliseconds(5)
    /// How long the need must stay lower before a step down, and how far apart steps are.
    static let calm = ClockTime.seconds(3)
    static let stepDown = ClockTime.milliseconds(10)
    /// The percentile of the transits it covers: about 1 packet in 50 may still come too late.
    static let percentile = 0.98

    /// The delay in force.
    private(set) var delay = JitterBufferPolicy.start
    /// Since when (ns) the need has been lower than the delay, and when the delay last went down.
    private var lowerSince: UInt64?
    private var lastStepDown: UInt64 = 0

    /// What the stream needs now: the spread plus the margin, in 5 ms steps, between one packet and the ceiling.
    static func need(spread: ClockTime, packetTime: ClockTime) -> ClockTime {
        let wanted = (spread.nanoseconds + margin.nanoseconds + 4_999_999) / 5_000_000 * 5_000_000
        return ClockTime(nanoseconds: min(ceiling.nanoseconds, max(packetTime.nanoseconds, wanted)))
    }

    /// Moves the delay towards `need` at `now` (ns); returns the new delay when it changed.
    mutating func update(need: ClockTime, now: UInt64) -> ClockTime? {
        if need > delay {
            delay = need
            lowerSince = nil
            return delay
        }
        guard need < delay else { lowerSince = nil; return nil }
        let since = lowerSince ?? now
        lowerSince = since
        guard now - since >= Self.calm.nanoseconds, now - lastStepDown >= Self.calm.nanoseconds else { return nil }
        lastStepDown = now
        delay = ClockTime(nanoseconds: max(need.nanoseconds, delay.nanoseconds - min(delay.nanoseconds, Self.stepDown.nanoseconds)))
        return delay
    }
}
