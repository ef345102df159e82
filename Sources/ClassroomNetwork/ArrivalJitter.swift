import GStreamer

/// How unevenly a stream's packets arrive, measured against their own clock (RTP timestamps):
/// each packet's transit time is its arrival minus its media time, and what a jitter buffer must
/// hold is how far a high percentile of the transits in a sliding window lies above the fastest
/// one (NetEq's measure; a constant network delay cancels out).
///
/// Every field it reads comes from the network, so nothing here can trap: media times are kept
/// relative to the stream's start, converted without overflow, and a stream that jumps (a new
/// SSRC, a sender restarted with other timestamps, a forged packet) starts the measure afresh
/// instead of mixing two timelines. A packet the receiver already had is not measured: the
/// jitter buffer drops it, so it says nothing about what the buffer must hold.
struct ArrivalJitter {
    /// How far back packets count.
    let window: ClockTime
    /// Arrival (ns, any monotonic origin) and transit (ns) of each packet in the window, oldest first.
    private var packets: [(arrival: UInt64, transit: Int64)] = []
    private var first = 0
    /// The stream measured, its previous packet's media time (unwrapped ticks since its first packet)
    /// and RTP timestamp, for the packet time and the next unwrap.
    private var stream: UInt32?
    private var lastMediaTime: Int64 = 0
    private var lastTimestamp: UInt32?
    /// The latest positive steps between consecutive packets' media times (ns).
    private var steps: [UInt64] = []
    /// The sequence numbers of the latest packets, to know a duplicate.
    private var recent = RecentSequences()
    /// Packets in a row from further back than `RecentSequences.reach`.
    private var farBehind = 0
    /// How many times the measure started afresh because the stream jumped.
    private(set) var restarts = 0
    /// Packets in a row from far behind that make a stream that went back.
    static let resynchronisation = 3

    /// A transit that moves by more than this between two packets is a new timeline, not jitter:
    /// it is five times what the buffer may ever hold (`JitterBufferPolicy.ceiling`).
    static let jump = ClockTime.seconds(1)

    init(window: ClockTime = .seconds(5)) { self.window = window }

    /// One packet's duration: the median step between consecutive packets' media times (not the
    /// smallest: an encoder's first packet steps by less, opusenc's by its 6.5 ms pre-skip; a
    /// packet lost or overtaken steps by more).
    var packetTime: ClockTime? {
        guard !steps.isEmpty else { return nil }
        return ClockTime(nanoseconds: steps.sorted()[steps.count / 2])
    }

    /// The packets in the window.
    var count: Int { packets.count - first }

    /// Records a packet of stream `ssrc` that arrived at `arrival` (ns) with RTP `sequence` and
    /// `timestamp` at `clockRate`; a duplicate or a packet from long ago is passed over.
    mutating func record(arrival: UInt64, ssrc: UInt32 = 0, sequence: UInt16, timestamp: UInt32, clockRate: Int) {
        guard clockRate > 0 else { return }
        if stream != ssrc {
            restart(ssrc, at: sequence)
        } else {
            switch recent.insert(sequence) {
            case .new:
                farBehind = 0
            case .duplicate:
                return
            case .farBehind:
                // A few in a row are a sender that went back (a restart under the same SSRC); one
                // alone, between the stream's own packets, is stale or forged.
                farBehind += 1
                guard farBehind >= Self.resynchronisation else { return }
                restart(ssrc, at: sequence)
            }
        }
        var mediaTime: Int64 = 0
        if let lastTimestamp {
            // The 32-bit timestamp wraps; the step to the nearer side is the true one (reordering goes back a little).
            let step = Int64(Int32(bitPattern: timestamp &- lastTimestamp))
            let (sum, overflow) = lastMediaTime.addingReportingOverflow(step)
            mediaTime = overflow ? 0 : sum
            if overflow || jumped(arrival: arrival, mediaTime: mediaTime, clockRate: clockRate) {
                restart(ssrc, at: sequence)
                mediaTime = 0
            } else if step > 0 {
                steps.append(Self.nanoseconds(ticks: step, clockRate: clockRate))
                if steps.count > 64 { steps.removeFirst() }
            }
        }
        if lastTimestamp == nil || mediaTime >= lastMediaTime { lastTimestamp = timestamp; lastMediaTime = mediaTime }
        packets.append((arrival, Self.transit(arrival: arrival, mediaTime: mediaTime, clockRate: clockRate)))
        while first < packets.count, arrival >= packets[first].arrival, arrival - packets[first].arrival > window.nanoseconds { first += 1 }
        if first > 512 { packets.removeFirst(first); first = 0 }
    }

    /// How far the `percentile` (0–1) of the window's transits lies above the fastest one.
    func spread(percentile: Double) -> ClockTime {
        let transits = packets[first...].map(\.transit).sorted()
        guard let fastest = transits.first else { return .zero }
        let index = min(transits.count - 1, Int((Double(transits.count - 1) * percentile).rounded(.up)))
        // Sorted, so never below the fastest; a spread past Int64 saturates.
        let (above, overflow) = transits[index].subtractingReportingOverflow(fastest)
        return ClockTime(nanoseconds: overflow ? UInt64(Int64.max) : UInt64(above))
    }

    /// Forgets the stream measured so far and measures `ssrc` from its packet `sequence` on.
    private mutating func restart(_ ssrc: UInt32, at sequence: UInt16) {
        if stream != nil { restarts += 1 }
        stream = ssrc
        packets.removeAll(keepingCapacity: true)
        first = 0
        steps.removeAll(keepingCapacity: true)
        lastTimestamp = nil
        lastMediaTime = 0
        recent = RecentSequences()
        _ = recent.insert(sequence)
        farBehind = 0
    }

    /// Whether a packet at `mediaTime` moved the transit by more than `jump` from the previous one's.
    private func jumped(arrival: UInt64, mediaTime: Int64, clockRate: Int) -> Bool {
        guard let previous = packets.last else { return false }
        let transit = Self.transit(arrival: arrival, mediaTime: mediaTime, clockRate: clockRate)
        let (moved, overflow) = transit.subtractingReportingOverflow(previous.transit)
        return overflow || moved.magnitude > Self.jump.nanoseconds
    }

    /// Arrival minus media time, in ns; wraps rather than traps (a jump is caught before it matters).
    private static func transit(arrival: UInt64, mediaTime: Int64, clockRate: Int) -> Int64 {
        let media = mediaTime < 0 ? -Int64(clamping: nanoseconds(ticks: -mediaTime, clockRate: clockRate))
                                  : Int64(clamping: nanoseconds(ticks: mediaTime, clockRate: clockRate))
        return Int64(truncatingIfNeeded: arrival) &- media
    }

    /// `ticks` of a `clockRate` clock in ns, saturating (whole seconds and the rest apart, so no product overflows first).
    static func nanoseconds(ticks: Int64, clockRate: Int) -> UInt64 {
        let rate = Int64(clockRate)
        let (seconds, rest) = ticks.magnitude.quotientAndRemainder(dividingBy: rate.magnitude)
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole.addingReportingOverflow(rest * 1_000_000_000 / rate.magnitude).partialValue
    }
}

/// The sequence numbers of the last packets received, to tell a duplicate, or a packet from
/// further back than they reach, from one that is new.
struct RecentSequences {
    /// How many packets back a sequence number is remembered (2.5 s of 20 ms packets).
    static let reach = 128
    private var highest: UInt16?
    /// Bit `i` is set when `highest - i` was received.
    private var seen = (low: UInt64(0), high: UInt64(0))

    /// What a sequence number was to the ones before it.
    enum Arrival: Equatable {
        case new, duplicate, farBehind
    }

    /// Records `sequence` and says whether it is new, came before, or is older than `reach` packets.
    mutating func insert(_ sequence: UInt16) -> Arrival {
        guard let highest else {
            self.highest = sequence
            seen = (1, 0)
            return .new
        }
        let ahead = Int(Int16(bitPattern: sequence &- highest))
        if ahead > 0 {
            shift(by: ahead)
            self.highest = sequence
            seen.low |= 1
            return .new
        }
        let behind = -ahead
        guard behind < Self.reach else { return .farBehind }
        let (word, bit) = behind < 64 ? (0, behind) : (1, behind - 64)
        let mask = UInt64(1) << UInt64(bit)
        let had = (word == 0 ? seen.low : seen.high) & mask != 0
        if word == 0 { seen.low |= mask } else { seen.high |= mask }
        return had ? .duplicate : .new
    }

    private mutating func shift(by count: Int) {
        guard count < Self.reach else {
            seen = (0, 0)
            return
        }
        if count >= 64 {
            seen = (0, seen.low << UInt64(count - 64))
        } else {
            seen = (seen.low << UInt64(count), (seen.high << UInt64(count)) | (seen.low >> UInt64(64 - count)))
        }
    }
}
