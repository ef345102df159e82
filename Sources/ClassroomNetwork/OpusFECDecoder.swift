import GStreamer
import Synchronization

/// opusdec decoding the sender's in-band FEC, at the cost of one packet instead of 120 ms.
///
/// With `use-inband-fec` opusdec holds each packet until the next one comes (the next carries
/// the FEC copy of a lost one), so its output is exactly one packet late; but it reports 120 ms
/// of latency (the longest packet Opus allows), and a peer's appsink then plays 120 ms later than
/// needed (WORKAROUNDS §22). Here its source pad answers the latency query itself: what is
/// upstream plus one packet, the packet's duration read from each packet's TOC byte (20 ms, what
/// WebRTC and our uplink send by default, until the first packet says otherwise; then the longest
/// packet seen, so a sender that varies its packets does not move the playout back and forth). A
/// change posts a LATENCY message, so the pipeline recalculates.
final class OpusFECDecoder: Sendable {
    /// Assumed before the first packet: the common packet time (WebRTC's, our uplink's default).
    static let assumedPacketTime = ClockTime.milliseconds(20)

    /// The opusdec (plc and use-inband-fec on: FEC decoding needs plc).
    let element: Element
    /// Its sink pad, whose peer answers for what is upstream.
    private let input: Pad
    /// The longest packet seen, in nanoseconds; 0 before the first. Written by the streaming thread only.
    private let longestPacket = Atomic<UInt64>(0)
    private let probes = Mutex<[PadProbe]>([])

    /// Makes the decoder; keep the object as long as the element runs (it holds the probes).
    init(name: String) throws(GStreamerError) {
        element = try ElementFactory.make("opusdec", name: name, properties: ["plc": true, "use-inband-fec": true])
        input = try element.staticPad("sink")
        let output = try element.staticPad("src")
        // The closures reach the element and its pad through a weak self: a pad holding its own element would never be freed.
        // Streaming thread (the only writer): a message only when the latency it answers changes.
        let measure = input.addProbe(.buffer) { [weak self] info in
            guard let self, let buffer = info.buffer, let duration = OpusPacket.duration(of: buffer.bytes()) else { return .ok }
            let before = latency
            guard duration.nanoseconds > longestPacket.load(ordering: .relaxed) else { return .ok }
            longestPacket.store(duration.nanoseconds, ordering: .relaxed)
            if latency != before { element.postLatencyMessage() }
            return .ok
        }
        // Answered before opusdec sees the query (a probe's HANDLED skips its query function).
        let answer = output.addProbe(.queryUpstream) { [weak self] info in
            guard let self, let query = info.query, query.isLatency, let upstream = self.input.peerLatency() else { return .ok }
            let packet = latency
            query.answerLatency(live: upstream.isLive, min: upstream.minimum + packet, max: upstream.maximum.map { $0 + packet })
            return .handled
        }
        probes.withLock { $0 = [measure, answer].compactMap { $0 } }
    }

    /// One packet: what the decoder holds back, and what it adds to the latency.
    var latency: ClockTime {
        let longest = longestPacket.load(ordering: .relaxed)
        return longest == 0 ? OpusFECDecoder.assumedPacketTime : ClockTime(nanoseconds: longest)
    }
}
