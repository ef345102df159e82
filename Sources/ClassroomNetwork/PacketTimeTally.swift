import GStreamer

/// A stream's packet time from the durations of its latest packets: the longest duration that
/// several of them carry. A sender that varies its packets holds the longest it keeps using, so
/// the playout does not move back and forth; one odd packet (a 120 ms TOC from a stranger or a
/// glitch) never counts, and one the sender stopped using ages out.
struct PacketTimeTally {
    /// How many of the latest packets are looked at (two seconds of 20 ms packets).
    static let reach = 100
    /// How many of them must carry a duration before it counts.
    static let quorum = 3
    private var durations: [ClockTime] = []
    private var next = 0

    /// Records one packet's duration.
    mutating func record(_ duration: ClockTime) {
        if durations.count < Self.reach {
            durations.append(duration)
        } else {
            durations[next] = duration
            next = (next + 1) % Self.reach
        }
    }

    /// The longest duration at least `quorum` of the latest packets carry; nil before there is one.
    var packetTime: ClockTime? {
        var counts: [ClockTime: Int] = [:]
        for duration in durations { counts[duration, default: 0] += 1 }
        return counts.filter { $0.value >= Self.quorum }.keys.max()
    }
}
