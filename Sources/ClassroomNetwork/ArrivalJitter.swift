import GStreamer

/// How unevenly a stream's packets arrive, measured against their own clock (RTP timestamps):
/// each packet's transit time is its arrival minus its media time, and what a jitter buffer must
/// hold is how far a high percentile of the transits in a sliding window lies above the fastest
/// one (NetEq's measure; a constant network delay cancels out).
struct ArrivalJitter {
    /// How far back packets count.
    let window: ClockTime
    /// Arrival (ns, any monotonic origin) and transit (ns) of each packet in the window, oldest first.
    private var packets: [(arrival: UInt64, transit: Int64)] = []
    private var first = 0
    /// The previous packet's media time (unwrapped, in clock ticks), for the packet time.
    private var lastMediaTime: Int64?
    private var lastTimestamp: UInt32?
    /// The latest positive steps between consecutive packets' media times (ns).
    private var steps: [UInt64] = []

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

    /// Records a packet that arrived at `arrival` (ns) with RTP `timestamp` at `clockRate`.
    mutating func record(arrival: UInt64, timestamp: UInt32, clockRate: Int) {
        let mediaTime: Int64
        if let lastTimestamp, let lastMediaTime {
            // The 32-bit timestamp wraps; the step to the nearer side is the true one (reordering goes back a little).
            mediaTime = lastMediaTime + Int64(Int32(bitPattern: timestamp &- lastTimestamp))
            let step = mediaTime - lastMediaTime
            if step > 0 {
                steps.append(UInt64(step) * 1_000_000_000 / UInt64(clockRate))
                if steps.count > 64 { steps.removeFirst() }
            }
        } else {
            mediaTime = 0
        }
        if mediaTime >= (lastMediaTime ?? .min) { lastTimestamp = timestamp; lastMediaTime = mediaTime }
        packets.append((arrival, Int64(arrival) - mediaTime * 1_000_000_000 / Int64(clockRate)))
        while first < packets.count, arrival - packets[first].arrival > window.nanoseconds { first += 1 }
        if first > 512 { packets.removeFirst(first); first = 0 }
    }

    /// How far the `percentile` (0–1) of the window's transits lies above the fastest one.
    func spread(percentile: Double) -> ClockTime {
        let transits = packets[first...].map(\.transit).sorted()
        guard let fastest = transits.first else { return .zero }
        let index = min(transits.count - 1, Int((Double(transits.count - 1) * percentile).rounded(.up)))
        return ClockTime(nanoseconds: UInt64(transits[index] - fastest))
    }
}
