import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// The live RTC feed: decoded in its own small pipeline and pushed, as PCM, into an RTC input
/// of the engine — exactly what an RTC SDK does with the audio it receives.
///
///     file/rtsp/srt/http  uridecodebin ─audio─┐
///     rtp                 udpsrc ► rtpjitterbuffer ► rtpopusdepay ► opusdec ─┴► queue ► audioconvert ► audioresample
///                         ► S16LE 48 kHz mono ► appsink (sync: released in real time) ─► AudioInput.push
final class LiveFeed: Sendable {
    /// What the feed reports.
    enum Event: Sendable {
        /// The feed's pipeline started (for RTP: it is listening).
        case started
        /// The first audio arrived and was pushed into the engine.
        case receiving
        /// The feed ended (end of file or stream).
        case ended
        /// The feed failed; the lesson and the engine are unaffected.
        case failed(String)
    }

    /// The format an RTC SDK hands over: 16-bit mono at 48 kHz.
    static let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)

    /// Where it comes from.
    let source: LiveSource
    /// The engine input it pushes into.
    let input: AudioInput
    private let pipeline: Pipeline
    private let tokens = Mutex<[any AnyObject & Sendable]>([])
    private let counters = Counters()
    private let logger: Logger

    init(source: LiveSource, input: AudioInput, logger: Logger) throws(GStreamerError) {
        self.source = source
        self.input = input
        self.logger = logger
        pipeline = try Pipeline(name: "live-feed")
        pipeline.useClock(try Clock.system())
        let sink = try AppSink.make(name: "live-sink")
        // sync=true: the sink releases audio at its running time, so pushes arrive in real time.
        try sink.configure(caps: LiveFeed.format.caps, maxBuffers: 0, drop: false, sync: true)
        let tail: [Element] = [
            try ElementFactory.make("queue", name: "live-queue"),
            try ElementFactory.make("audioconvert", name: "live-convert"),
            try ElementFactory.make("audioresample", name: "live-resample"),
            try ElementFactory.make("capsfilter", name: "live-format", properties: ["caps": .caps(LiveFeed.format.caps)]),
            sink,
        ]
        try pipeline.addLinked(tail)
        switch source {
        case .rtp(let host, let port):
            let head = [
                try ElementFactory.make("udpsrc", name: "live-src", properties: [
                    "address": .string(host), "port": .int(Int64(port)),
                    "caps": .caps(try Caps("application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=96")),
                ]),
                // 60 ms of reordering and jitter, as an RTC receiver would allow.
                try ElementFactory.make("rtpjitterbuffer", name: "live-jitter", properties: ["latency": .int(60)]),
                try ElementFactory.make("rtpopusdepay", name: "live-depay"),
                try ElementFactory.make("opusdec", name: "live-decoder"),
            ]
            try pipeline.addLinked(head)
            if let last = head.last, let first = tail.first { _ = try last.link(to: first) }
        case .file(_, let uri), .network(let uri):
            let decode = try ElementFactory.make("uridecodebin", name: "live-decode", properties: ["uri": .string(uri)])
            try pipeline.add(decode)
            let pipeline = self.pipeline
            let entry = tail[0]
            let handler = decode.onPadAdded { pad in
                let media = pad.currentCaps?.structure()?.name ?? pad.queryCaps().structure()?.name ?? ""
                do {
                    let sinkPad = try entry.staticPad("sink")
                    if media.hasPrefix("audio/"), !sinkPad.isLinked {
                        try pad.link(to: sinkPad)
                    } else {
                        // Video or a second audio stream: consumed, or the decoder stops with not-linked.
                        let discard = try ElementFactory.make("fakesink", properties: ["sync": false, "async": false])
                        try pipeline.add(discard)
                        try pad.link(to: try discard.staticPad("sink"))
                        try discard.syncStateWithParent()
                    }
                } catch {
                    logger.warning("live feed: cannot use its \(media) stream: \(error)")
                }
            }
            tokens.withLock { $0.append(handler) }
        }
        let counters = self.counters
        let pushToken = try sink.onNewSample { sample in
            guard let samples = sample.buffer?.int16Samples(), !samples.isEmpty else { return }
            do {
                try input.push(samples)
                if counters.samples.add(samples.count, ordering: .relaxed).oldValue == 0 { counters.announce(.receiving) }
            } catch {
                if counters.refused.add(1, ordering: .relaxed).newValue == 1 { logger.warning("live feed: the RTC input refused audio: \(error)") }
            }
        }
        tokens.withLock { $0.append(pushToken) }
    }

    /// Starts the feed; `onEvent` runs on the feed's bus thread.
    func start(onEvent: @escaping @Sendable (Event) -> Void) throws(GStreamerError) {
        let counters = self.counters
        counters.handler.withLock { $0 = onEvent }
        let subscription = pipeline.bus.subscribe { message in
            switch message.view {
            case .endOfStream:
                if !counters.reported.exchange(true, ordering: .relaxed) { onEvent(.ended) }
            case .error(let error, _):
                if !counters.reported.exchange(true, ordering: .relaxed) { onEvent(.failed("\(message.source ?? "live feed"): \(error.message)")) }
            default:
                break
            }
        }
        tokens.withLock { $0.append(subscription) }
        // A live network source answers NO_PREROLL (udpsrc has bound its port by then); a file
        // prerolls asynchronously. Failures arrive on the bus.
        try pipeline.setState(.playing)
        onEvent(.started)
    }

    /// Stops the feed and releases the source (socket, file).
    func stop() {
        _ = try? pipeline.setState(.null)
        tokens.withLock { $0.removeAll() }
    }

    /// Seconds of audio pushed into the engine.
    var secondsPushed: Double { Double(counters.samples.load(ordering: .relaxed)) / Double(LiveFeed.format.rate * LiveFeed.format.channels) }

    /// Pushes the engine refused.
    var refusedPushes: Int { counters.refused.load(ordering: .relaxed) }

    deinit { stop() }
}

/// What the feed's streaming and bus threads count, shared with them by reference.
private final class Counters: Sendable {
    /// Samples pushed into the engine.
    let samples = Atomic<Int>(0)
    /// Pushes the engine refused.
    let refused = Atomic<Int>(0)
    /// Whether the end or a failure was reported (once).
    let reported = Atomic<Bool>(false)
    /// Who hears about the feed, once it started.
    let handler = Mutex<(@Sendable (LiveFeed.Event) -> Void)?>(nil)

    /// Tells the handler, if any.
    func announce(_ event: LiveFeed.Event) {
        handler.withLock { $0 }?(event)
    }
}
