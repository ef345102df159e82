import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// One peer's audio, decoded in its own small pipeline and pushed as PCM into an RTC input of
/// the engine — exactly what an RTC SDK does with the audio it receives.
///
///     file/rtsp/srt/http  uridecodebin ─audio──────────────────────────────────────────┐
///     rtp                 udpsrc ► rtpptdemux ─(a dynamic payload type)► rtpjitterbuffer ► rtpopusdepay ► opusdec ─┤
///     SDP file            filesrc ► sdpdemux ► decodebin ─audio─────────────────────────┤
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
    }

    /// The format an RTC SDK hands over: 16-bit mono at 48 kHz.
    public static let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
    /// How long an RTP receiver waits for late and reordered packets.
    public static let jitterLatency = ClockTime.milliseconds(60)

    /// Where it comes from.
    public let source: PeerSource
    /// The engine input it pushes into.
    public let input: AudioInput
    private let pipeline: Pipeline
    /// The RTP receiver (udpsrc), whose socket an uplink to the same server can send from.
    public var rtpReceiver: Element? { receiver.withLock { $0 } }
    private let receiver = Mutex<Element?>(nil)
    private let tokens = Mutex<[any AnyObject & Sendable]>([])
    private let counters = PeerCounters()
    private let logger: Logger

    /// Builds the feed's pipeline; nothing is received until `start`.
    public init(source: PeerSource, input: AudioInput, logger: Logger) throws(EngineError) {
        self.source = source
        self.input = input
        self.logger = logger
        do {
            pipeline = try Pipeline(name: EngineGraph.Peer.pipeline(input.id))
            pipeline.useClock(try Clock.system())
            let tail = try PeerFeed.makeTail(levelInterval: .milliseconds(100))
            try pipeline.addLinked(tail)
            guard let entry = tail.first, let sink = tail.last as? AppSink else { throw GStreamerError.failed("empty peer chain") }
            let entryPad = try entry.staticPad("sink")
            switch source {
            case .rtp(let address, let port, let payloadType):
                let udp = try buildRTP(address: address, port: port, pinned: payloadType, into: entryPad)
                receiver.withLock { $0 = udp }
            case .sessionDescription(let description):
                try buildSDP(description, into: entryPad)
            case .file(_, let uri), .network(let uri):
                let decode = try ElementFactory.make("uridecodebin", name: EngineGraph.Peer.decode, properties: ["uri": .string(uri)])
                try pipeline.add(decode)
                linkAudio(of: decode, to: entryPad)
            }
            let counters = self.counters
            let pushToken = try sink.onNewSample { sample in
                guard let samples = sample.buffer?.int16Samples(), !samples.isEmpty else { return }
                do {
                    try input.push(samples)
                    counters.lastPush.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
                    if counters.samples.add(samples.count, ordering: .relaxed).oldValue == 0 { counters.announce(.receiving) }
                } catch {
                    if counters.refused.add(1, ordering: .relaxed).newValue == 1 { logger.warning("peer \(input.id): the RTC input refused audio: \(error)") }
                }
            }
            tokens.withLock { $0.append(pushToken) }
        } catch let error as GStreamerError {
            throw .gstreamer(error)
        } catch {
            throw .gstreamer(.failed("\(error)"))
        }
    }

    /// queue ► convert ► resample ► the RTC format ► level ► appsink (sync=true: released in real time).
    private static func makeTail(levelInterval: ClockTime) throws(GStreamerError) -> [Element] {
        let sink = try AppSink.make(name: EngineGraph.Peer.sink)
        try sink.configure(caps: format.caps, maxBuffers: 0, drop: false, sync: true)
        return [
            try ElementFactory.make("queue", name: EngineGraph.Peer.queue),
            try ElementFactory.make("audioconvert", name: EngineGraph.Peer.convert),
            try ElementFactory.make("audioresample", name: EngineGraph.Peer.resample),
            try ElementFactory.make("capsfilter", name: EngineGraph.Peer.format, properties: ["caps": .caps(format.caps)]),
            try ElementFactory.make("level", name: EngineGraph.Peer.level, properties: ["interval": .time(levelInterval)]),
            sink,
        ]
    }


    /// udpsrc ► rtpptdemux: each payload type gets a pad; the first dynamic one (or the pinned one) is decoded as Opus, anything else is reported.
    private func buildRTP(address: String, port: Int, pinned: Int?, into entryPad: Pad) throws(GStreamerError) -> Element {
        let udp = try ElementFactory.make("udpsrc", name: EngineGraph.Peer.udp, properties: [
            "address": .string(address), "port": .int(Int64(port)),
            // Without SO_REUSEADDR a port another program listens on is refused instead of shared.
            "reuse": false,
            "caps": .caps(try Caps("application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000")),
        ])
        let demux = try ElementFactory.make("rtpptdemux", name: EngineGraph.Peer.payloadDemux)
        let decode: [Element] = [
            try ElementFactory.make("rtpjitterbuffer", name: EngineGraph.Peer.jitter, properties: ["latency": .int(Int64(PeerFeed.jitterLatency.milliseconds))]),
            try ElementFactory.make("rtpopusdepay", name: EngineGraph.Peer.depay),
            try ElementFactory.make("opusdec", name: EngineGraph.Peer.decoder),
        ]
        try pipeline.addLinked([udp, demux])
        try pipeline.addLinked(decode)
        guard let first = decode.first, let last = decode.last else { return udp }
        try last.staticPad("src").link(to: entryPad)
        let decoderPad = try first.staticPad("sink")
        let counters = self.counters
        let pipeline = self.pipeline
        let description = source.description
        let logger = self.logger
        tokens.withLock { $0.append(demux.onPadAdded { pad in
            let type = Int(pad.currentCaps?.structure()?.int("payload") ?? Int64(pad.name.split(separator: "_").last.flatMap { Int($0) } ?? -1))
            let problem: String?
            if decoderPad.isLinked {
                problem = "a second payload type, \(type), arrived on \(description) after the first; only one stream per port is played"
            } else if let pinned, type != pinned {
                problem = "payload type \(type)\(PeerFeed.staticName(type)) arrived on \(description), which is pinned to \(pinned) (?pt=\(pinned))"
            } else if !(96...127).contains(type) {
                problem = "payload type \(type)\(PeerFeed.staticName(type)) arrived on \(description): rtp:// feeds are Opus on a dynamic payload type (96–127);"
                    + " describe this sender with an SDP file (--live FILE.sdp)"
            } else {
                problem = nil
            }
            do {
                if let problem {
                    // Consumed, so the port stays open and nothing stops with not-linked; the reason is said once.
                    let discard = try ElementFactory.make("fakesink", properties: ["sync": false, "async": false])
                    try pipeline.add(discard)
                    try pad.link(to: try discard.staticPad("sink"))
                    try discard.syncStateWithParent()
                    logger.warning("peer: \(problem)")
                    counters.report(.failed(problem))
                } else {
                    try pad.link(to: decoderPad)
                }
            } catch {
                counters.report(.failed("the stream on \(description) cannot be decoded: \(error)"))
            }
        }) }
        return udp
    }

    /// The codec a static payload type stands for, in parentheses, or nothing.
    private static func staticName(_ type: Int) -> String {
        switch type {
        case 0: return " (PCMU)"
        case 8: return " (PCMA)"
        case 9: return " (G.722)"
        case 10, 11: return " (L16)"
        case 14: return " (MPEG audio)"
        case 18: return " (G.729)"
        case 26: return " (JPEG video)"
        case 31...34: return " (video)"
        default: return ""
        }
    }

    /// filesrc ► sdpdemux (its own jitter buffers) ► decodebin per stream.
    private func buildSDP(_ description: SessionDescription, into entryPad: Pad) throws(GStreamerError) {
        let file = try ElementFactory.make("filesrc", name: EngineGraph.Peer.sdpFile, properties: ["location": .string(description.path)])
        let demux = try ElementFactory.make("sdpdemux", name: EngineGraph.Peer.sdpDemux, properties: ["latency": .int(Int64(PeerFeed.jitterLatency.milliseconds))])
        try pipeline.addLinked([file, demux])
        let pipeline = self.pipeline
        let logger = self.logger
        tokens.withLock { $0.append(demux.onPadAdded { [weak self] pad in
            do {
                let decode = try ElementFactory.make("decodebin")
                try pipeline.add(decode)
                try pad.link(to: try decode.staticPad("sink"))
                self?.linkAudio(of: decode, to: entryPad)
                try decode.syncStateWithParent()
            } catch {
                logger.warning("peer: cannot decode a stream of \(description.path): \(error)")
            }
        }) }
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
        let subscription = pipeline.bus.subscribe { message in
            firstError.record(message)
            switch message.view {
            case .endOfStream:
                counters.report(.ended)
            case .error(let error, _):
                counters.report(.failed("\(message.source ?? "peer"): \(error.message)"))
            case .element(let structure) where structure.name == "level" && message.source == EngineGraph.Peer.level:
                if let loudest = structure.doubles("rms")?.max() { counters.level.withLock { $0 = loudest } }
            default:
                break
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
    public var secondsPushed: Double { Double(counters.samples.load(ordering: .relaxed)) / Double(PeerFeed.format.rate * PeerFeed.format.channels) }

    /// Pushes the engine refused.
    public var refusedPushes: Int { counters.refused.load(ordering: .relaxed) }

    /// The loudest channel's RMS of the latest 100 ms received (dBFS); nil before any.
    public var level: Double? { counters.level.withLock { $0 } }

    /// Whether audio was pushed within the last half second.
    public var isReceiving: Bool {
        let last = counters.lastPush.load(ordering: .relaxed)
        return last > 0 && DispatchTime.now().uptimeNanoseconds - last < 500_000_000
    }

    deinit { stop() }
}

/// What the feed's streaming and bus threads count, shared with them by reference.
private final class PeerCounters: Sendable {
    /// Samples pushed into the engine.
    let samples = Atomic<Int>(0)
    /// Pushes the engine refused.
    let refused = Atomic<Int>(0)
    /// When audio was last pushed (uptime ns).
    let lastPush = Atomic<UInt64>(0)
    /// Whether the end or a failure was reported (once).
    let reported = Atomic<Bool>(false)
    /// The latest level (dBFS).
    let level = Mutex<Double?>(nil)
    /// Who hears about the feed, once it started.
    let handler = Mutex<(@Sendable (PeerFeed.Event) -> Void)?>(nil)

    /// Tells the handler, if any.
    func announce(_ event: PeerFeed.Event) {
        handler.withLock { $0 }?(event)
    }

    /// Tells the handler of the end or a failure, only the first time.
    func report(_ event: PeerFeed.Event) {
        if !reported.exchange(true, ordering: .relaxed) { announce(event) }
    }
}
