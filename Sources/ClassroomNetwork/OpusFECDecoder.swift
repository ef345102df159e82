import GStreamer
import Synchronization

/// opusdec that decodes the sender's in-band FEC once the stream has lost a packet, at the cost
/// of one packet from then on, never 120 ms.
///
/// With `use-inband-fec` opusdec holds each packet until the next one comes (the next carries the
/// FEC copy of a lost one), so its output is exactly one packet late. A stream that loses nothing
/// would pay that packet for nothing, so the decoder starts without it (a loss is concealed, PLC)
/// and turns FEC on at the first lost packet, before it decodes that loss: the loss itself is
/// already rebuilt from the next packet, and the stream is one packet later from there on
/// (NetEq's trade, made once). `onHold` runs when the first audio of the held decoder comes out
/// (the feed says so; it does not re-anchor, which left a packet of silence right at the loss).
///
/// opusdec would report 120 ms of latency with FEC (the longest packet Opus allows), and a peer's
/// appsink would then play 120 ms later than needed (WORKAROUNDS §22). Here its source pad answers
/// the latency query itself: what is upstream, plus one packet while it holds one, the packet's
/// duration read from each packet's TOC byte (20 ms, what WebRTC and our uplink send by default,
/// until the packets say otherwise; then `PacketTimeTally`'s: the longest that several recent
/// packets carry, so a sender that varies its packets does not move the playout back and forth and
/// one odd packet does not hold 120 ms for the stream's life). A change posts a LATENCY message,
/// so the pipeline recalculates.
final class OpusFECDecoder: Sendable {
    /// Assumed before the first packet: the common packet time (WebRTC's, our uplink's default).
    static let assumedPacketTime = ClockTime.milliseconds(20)

    /// The opusdec (plc on; use-inband-fec from the first loss: FEC decoding needs plc).
    let element: Element
    /// Its sink pad, where each packet's duration is read.
    private let input: Pad
    /// The latest packets' durations and the packet time they make (ns; 0 before there is one).
    /// Written by the streaming thread; read by whoever asks for the latency.
    private let packets = Mutex<(tally: PacketTimeTally, packetTime: UInt64)>((PacketTimeTally(), 0))
    /// 0: no packet held yet; 1: FEC turned on, its first output not out yet; 2: holding, said.
    private let stage = Atomic<Int>(0)
    private let probes = Mutex<[PadProbe]>([])

    /// Makes the decoder; keep the object as long as the element runs (it holds the probes).
    /// `onHold` gets the packet the decoder now holds, once, on the streaming thread.
    init(name: String, onHold: @escaping @Sendable (ClockTime) -> Void = { _ in }) throws(GStreamerError) {
        element = try ElementFactory.make("opusdec", name: name, properties: ["plc": true, "use-inband-fec": false])
        input = try element.staticPad("sink")
        let output = try element.staticPad("src")
        // The closures reach the element and its pad through a weak self: a pad holding its own element would never be freed.
        // Streaming thread (the only writer): a message only when the latency it answers changes.
        let measure = input.addProbe(.buffer) { [weak self] info in
            guard let self, let buffer = info.buffer, let duration = OpusPacket.duration(of: buffer.bytes()) else { return .ok }
            let before = latency
            let changed = packets.withLock { state in
                state.tally.record(duration)
                let now = state.tally.packetTime?.nanoseconds ?? state.packetTime
                defer { state.packetTime = now }
                return now != state.packetTime
            }
            if changed, latency != before { element.postLatencyMessage() }
            return .ok
        }
        // A lost packet reaches the decoder as a gap (rtpjitterbuffer's do-lost, through the
        // depayloader); FEC goes on before opusdec conceals it, so it waits for the next packet.
        let loss = input.addProbe(.eventDownstream) { [weak self] info in
            guard let self, info.event?.isGap == true, stage.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return .ok }
            try? element.set("use-inband-fec", true)
            element.postLatencyMessage()
            return .ok
        }
        let heard = output.addProbe(.buffer) { [weak self] _ in
            guard let self, stage.compareExchange(expected: 1, desired: 2, ordering: .relaxed).exchanged else { return .ok }
            onHold(packetTime)
            return .ok
        }
        // Answered before opusdec sees the query (a probe's HANDLED skips its query function).
        let answer = try element.answerLatency { [weak self] in self?.latency }
        probes.withLock { $0 = [measure, loss, heard, answer].compactMap { $0 } }
    }

    /// Whether the decoder holds a packet (the stream has lost one and FEC decoding is on).
    var isHolding: Bool { stage.load(ordering: .relaxed) > 0 }

    /// One packet of the stream: what the decoder holds once it decodes FEC.
    var packetTime: ClockTime {
        let current = packets.withLock { $0.packetTime }
        return current == 0 ? OpusFECDecoder.assumedPacketTime : ClockTime(nanoseconds: current)
    }

    /// What the decoder adds to the latency: one packet while it holds one, else nothing.
    var latency: ClockTime { isHolding ? packetTime : .zero }
}
