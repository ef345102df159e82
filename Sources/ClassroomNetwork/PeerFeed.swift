import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// One peer's audio, decoded in its own small pipeline and pushed as PCM into an RTC input of
/// the engine — exactly what an RTC SDK does with the audio it receives.
///
///     file/rtsp/srt/http  uridecodebin ─audio──────────────────────────────────────────┐
///     rtp, srtp, SDP file udpsrc [► srtpdec] ─(latched stream only)► rtpptdemux ► rtpjitterbuffer ► depayloader ► decoder ─┤
///                         queue ► audioconvert ► audioresample ► S16LE 48 kHz mono ► level ► appsink (sync) ─► AudioInput.push
public final class PeerFeed: Sendable {
    /// What the feed reports, on its streaming or bus thread.
    public enum Event: Sendable {
        /// The feed's pipeline started (for RTP: it is listening).
        case started
        /// The first audio arrived and was pushed into the engine.
        case receiving
        /// The feed ended (end of file or stream).
        case ended
        /// The feed failed; the engine and every other input are unaffected.
        case failed(String)
        /// RTP: the port latched onto a sender (the first, or one taking over a silent one).
        case latched(String)
        /// RTP: packets of another payload type or sender, or not RTP at all, were dropped (said once per kind).
        case rejected(String)
        /// RTP: the adaptive jitter buffer now holds this long (the measured arrival jitter moved it).
        case jitterBuffer(ClockTime)
        /// RTP Opus: the stream lost a packet, and from now on its decoder holds one packet (this
        /// long) to rebuild a lost one from the next one's in-band FEC.
        case lossRecovery(ClockTime)
    }

    /// The format an RTC SDK hands over: 16-bit mono at 48 kHz.
    public static let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
    /// How long an RTP receiver holds packets for late and reordered ones, unless told otherwise.
    public static let defaultJitterBuffer = JitterBufferSetting.adaptive

    /// Where it comes from.
    public let source: PeerSource
    /// The engine input it pushes into.
    public let input: AudioInput
    let pipeline: Pipeline
    /// The RTP receiver (udpsrc), whose socket an uplink to the same server can send from.
    public var rtpReceiver: Element? { receiver.withLock { $0 } }
    private let receiver = Mutex<Element?>(nil)
    let tokens = Mutex<[any AnyObject & Sendable]>([])
    let counters = PeerCounters()
    /// RTP: which stream the port plays (nil for files and network URIs).
    let latch: RTPLatch?
    /// RTP: how long the jitter buffer holds packets.
    let jitterBufferSetting: JitterBufferSetting
    let jitterBuffer = Mutex<AdaptiveJitterBuffer?>(nil)
    /// RTP Opus with FEC decoding: the decoder, which holds a packet from the first loss on; kept
    /// (with its probes) for the feed's life, so its figure outlives `stop`, as the jitter buffer's does.
    let fecDecoder = Mutex<OpusFECDecoder?>(nil)
    /// RTP Opus: whether the sender's in-band FEC is decoded (one packet of latency from the first loss on, WORKAROUNDS §22).
    let decodesFEC: Bool
    let logger: Logger

    /// Builds the feed's pipeline; nothing is received until `start`. `forwardErrorCorrection`: an
    /// Opus stream's lost packet is rebuilt from the next one's in-band FEC, for one packet of
    /// latency from the stream's first loss on; leave it on for senders that add FEC (our uplink
    /// does unless ?fec=off), off for those that never do (a Janus AudioBridge mix at its default
    /// expected_loss of 0), where a loss would only cost.
    public init(source: PeerSource, input: AudioInput, jitterBuffer: JitterBufferSetting = PeerFeed.defaultJitterBuffer,
                forwardErrorCorrection: Bool = true, logger: Logger) throws(EngineError) {
        self.source = source
        self.input = input
        self.logger = logger
        decodesFEC = forwardErrorCorrection
        jitterBufferSetting = jitterBuffer
        latch = PeerFeed.latch(for: source)
        do {
            pipeline = try Pipeline(name: NetworkGraph.Peer.pipeline(input.id))
            pipeline.useClock(try Clock.system())
            input.scheduleFeeder(pipeline)
            let tail = try PeerFeed.makeTail(levelInterval: .milliseconds(100))
            try pipeline.addLinked(tail)
            guard let entry = tail.first, let sink = tail.last as? AppSink else { throw GStreamerError.failed("empty peer chain") }
            let entryPad = try entry.staticPad("sink")
            switch source {
            case .rtp(let address, let port, _, let key):
                let udp = try buildRTP(address: address, port: port, format: PeerFeed.opus, key: key, into: entryPad)
                receiver.withLock { $0 = udp }
            case .sessionDescription(let description):
                guard let format = description.formats.first else { throw GStreamerError.failed("\(description) names no payload format") }
                // Where its c= line says, never every interface: that would take packets from any network the kiosk is on.
                let udp = try buildRTP(address: description.address, port: description.port, format: format, key: description.key, into: entryPad)
                receiver.withLock { $0 = udp }
            case .file(_, let uri), .network(let uri):
                let decode = try ElementFactory.make("uridecodebin", name: NetworkGraph.Peer.decode, properties: ["uri": .string(uri)])
                try pipeline.add(decode)
                linkAudio(of: decode, to: entryPad)
            }
            let pushToken = try PeerFeed.push(from: sink, into: input, counting: counters, logger: logger)
            tokens.withLock { $0.append(pushToken) }
        } catch let error as GStreamerError {
            throw .gstreamer(error)
        } catch {
            throw .gstreamer(.failed("\(error)"))
        }
    }

    /// Pushes what `sink` releases into `input`, counted in `counters`; the token keeps it going.
    static func push(from sink: AppSink, into input: AudioInput, counting counters: PeerCounters, logger: Logger) throws(GStreamerError) -> SignalHandler {
        try sink.onNewSample { sample in
            guard let samples = sample.buffer?.int16Samples(), !samples.isEmpty else { return }
            do {
                try input.push(samples)
                counters.lastPush.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                if counters.samples.add(samples.count, ordering: .relaxed).oldValue == 0 { counters.announce(.receiving) }
            } catch {
                if counters.refused.add(1, ordering: .relaxed).newValue == 1 { logger.warning("peer \(input.id): the RTC input refused audio: \(error)") }
            }
        }
    }

    /// queue ► convert ► resample ► the RTC format ► level ► appsink (sync=true: released in real time).
    static func makeTail(levelInterval: ClockTime) throws(GStreamerError) -> [Element] {
        let sink = try AppSink.make(name: NetworkGraph.Peer.sink)
        try sink.configure(caps: format.caps, maxBuffers: 0, drop: false, sync: true)
        // The push is a copy, and everything upstream had the jitter buffer's time to decode: no
        // deadline of its own (basesink's default 20 ms was 20 ms more mouth-to-ear, measured).
        try sink.set("processing-deadline", .uint64(0))
        return [
            try ElementFactory.make("queue", name: NetworkGraph.Peer.queue),
            try ElementFactory.make("audioconvert", name: NetworkGraph.Peer.convert),
            try ElementFactory.make("audioresample", name: NetworkGraph.Peer.resample),
            try ElementFactory.make("capsfilter", name: NetworkGraph.Peer.format, properties: ["caps": .caps(format.caps)]),
            try ElementFactory.make("level", name: NetworkGraph.Peer.level, properties: ["interval": .time(levelInterval)]),
            sink,
        ]
    }


    /// Links the first audio pad `decoder` adds to `entryPad`; anything else is consumed.
    private func linkAudio(of decoder: Element, to entryPad: Pad) {
        let pipeline = self.pipeline
        let logger = self.logger
        tokens.withLock { $0.append(decoder.onPadAdded { pad in
            let media = pad.currentCaps?.structure()?.name ?? pad.queryCaps().structure()?.name ?? ""
            do {
                if media.hasPrefix("audio/"), !entryPad.isLinked {
                    try pad.link(to: entryPad)
                } else {
                    // Video or a second audio stream: consumed, or the decoder stops with not-linked.
                    let discard = try ElementFactory.make("fakesink", properties: ["sync": false, "async": false])
                    try pipeline.add(discard)
                    try pad.link(to: try discard.staticPad("sink"))
                    try discard.syncStateWithParent()
                }
            } catch {
                logger.warning("peer: cannot use its \(media) stream: \(error)")
            }
        }) }
    }

    /// Starts the feed; `onEvent` runs on the feed's bus or streaming thread. Throws when it
    /// cannot start at all (a port another program holds, a file that vanished).
    public func start(onEvent: @escaping @Sendable (Event) -> Void) throws(EngineError) {
        let counters = self.counters
        counters.handler.withLock { $0 = onEvent }
        let firstError = FirstFailure<(GLibError, String?)>()
        let pipeline = self.pipeline
        let subscription = pipeline.bus.subscribe { message in
            firstError.record(message)
            switch message.view {
            case .endOfStream:
                counters.report(.ended)
            case .error(let error, _):
                counters.report(.failed("\(message.source ?? "peer"): \(error.message)"))
            default:
                counters.follow(message, in: pipeline)
            }
        }
        tokens.withLock { $0.append(subscription) }
        do {
            // A network source answers NO_PREROLL once its port is bound; a file prerolls asynchronously.
            try pipeline.setState(.playing)
        } catch {
            let reason = firstError.wait(upTo: .milliseconds(500))
            _ = try? pipeline.setState(.null)
            let why = reason.map { $0.0.message } ?? "\(error)"
            throw .badEndpoint(source.description, reason: why.contains("bind") || why.contains("settings") ?
                               "its port cannot be opened (\(why)); is another program listening on it?" : why)
        }
        onEvent(.started)
    }

    /// Stops the feed and releases the source (socket, file).
    public func stop() {
        _ = try? pipeline.setState(.null)
        tokens.withLock { $0.removeAll() }
    }

    /// Seconds of audio pushed into the engine.
    public var secondsPushed: Double { counters.seconds }

    /// Pushes the engine refused.
    public var refusedPushes: Int { counters.refused.load(ordering: .relaxed) }

    /// RTP packets dropped because they were not of the stream the port plays (another payload type or sender, or not RTP).
    public var rejectedPackets: Int { (latch?.dropped ?? 0) + counters.srtpFailures }

    /// RTP: how long the jitter buffer holds packets now, and how often an adaptive one moved; nil for other feeds.
    public var jitterBufferDelay: ClockTime? { jitterBuffer.withLock { $0?.delay } }
    public var jitterBufferChanges: Int { jitterBuffer.withLock { $0?.changeCount ?? 0 } }
    /// RTP Opus with FEC decoding: what the decoder holds back (one packet from the first loss on,
    /// else nothing); nil when the feed does not decode FEC.
    public var fecHeld: ClockTime? { fecDecoder.withLock { $0?.latency } }

    /// RTP: the packets the jitter buffer passed on and those it declared lost (concealed downstream), from its own statistics.
    public var jitterBufferCounts: (pushed: Int, lost: Int)? {
        guard let element = pipeline.element(named: NetworkGraph.Peer.jitter), let stats = try? element.structure("stats"),
              let pushed = stats.int("num-pushed"), let lost = stats.int("num-lost") else { return nil }
        return (Int(pushed), Int(lost))
    }

    /// The loudest channel's RMS of the latest 100 ms received (dBFS); nil before any.
    public var level: Double? { counters.level.withLock { $0 } }

    /// Whether audio was pushed within the last half second.
    public var isReceiving: Bool { counters.isReceiving }

    deinit { stop() }
}

/// What the feed's streaming and bus threads count, shared with them by reference.
final class PeerCounters: Sendable {
    /// Samples pushed into the engine.
    let samples = Atomic<Int>(0)
    /// Pushes the engine refused.
    let refused = Atomic<Int>(0)
    /// When audio was last pushed (uptime ns).
    let lastPush = Atomic<UInt64>(0)
    /// SRTP: packets into and out of srtpdec (the difference failed authentication), and whether that was said.
    let srtpIn = Atomic<Int>(0)
    let srtpOut = Atomic<Int>(0)
    let srtpFailureSaid = Atomic<Bool>(false)
    /// Whether the end or a failure was reported (once).
    let reported = Atomic<Bool>(false)
    /// The latest level (dBFS).
    let level = Mutex<Double?>(nil)
    /// Who hears about the feed, once it started.
    let handler = Mutex<(@Sendable (PeerFeed.Event) -> Void)?>(nil)

    /// Seconds of audio pushed into the engine.
    var seconds: Double { Double(samples.load(ordering: .relaxed)) / Double(PeerFeed.format.rate * PeerFeed.format.channels) }

    /// Whether audio was pushed within the last half second.
    var isReceiving: Bool {
        let last = lastPush.load(ordering: .relaxed)
        return last > 0 && DispatchTime.now().uptimeNanoseconds - last < 500_000_000
    }

    /// Follows what the tail's pipeline says: a jitter buffer whose delay moved (the appsink then
    /// releases audio by the new latency), and the tail's level.
    func follow(_ message: Message, in pipeline: Pipeline) {
        switch message.view {
        case .latency:
            _ = pipeline.recalculateLatency()
        case .element(let structure) where structure.name == "level" && message.source == NetworkGraph.Peer.level:
            if let loudest = structure.doubles("rms")?.max() { level.withLock { $0 = loudest } }
        default:
            break
        }
    }

    /// Packets srtpdec dropped: they failed authentication.
    var srtpFailures: Int { max(0, srtpIn.load(ordering: .relaxed) - srtpOut.load(ordering: .relaxed)) }

    /// Tells the handler, if any.
    func announce(_ event: PeerFeed.Event) {
        handler.withLock { $0 }?(event)
    }

    /// Tells the handler of the end or a failure, only the first time.
    func report(_ event: PeerFeed.Event) {
        if !reported.exchange(true, ordering: .relaxed) { announce(event) }
    }
}
