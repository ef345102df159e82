import Foundation
import GStreamer
import Logging
import Synchronization

/// Plays a lesson's video and audio, mixing a second file's audio in as the live feed.
///
/// lesson  uridecodebin ─video─► queue ► videoconvert ► video-sink
///                      └audio─► queue ► audioconvert ► audioresample ─┐
/// feed    uridecodebin ─audio─► queue ► audioconvert ► audioresample ─┴► rtc-mixer ► S16LE 48 kHz stereo ► output-level ► output
final class LessonMixPlayer {
    private let pipeline: Pipeline
    private let mixer: Element
    private let output: OutputSink
    private let logger: Logger
    private let meter = LevelMeter()
    private var handlers: [SignalHandler] = []

    /// The mix format: what the kiosk's output takes.
    static let mixCaps = "audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved"

    init(lessonURI: String, liveURI: String?, output: OutputSink, showVideo: Bool, logger: Logger) throws {
        self.output = output
        self.logger = logger
        pipeline = try Pipeline(name: "classroom-player")
        mixer = try ElementFactory.make("audiomixer", name: "rtc-mixer")
        let mixFormat = try ElementFactory.make("capsfilter", name: "mix-format", properties: ["caps": .caps(try Caps(Self.mixCaps))])
        let level = try ElementFactory.make("level", name: "output-level", properties: ["interval": .time(.milliseconds(100))])
        let outputElements = try output.makeElements()
        try pipeline.addLinked([mixer, mixFormat, level] + outputElements)

        try addSource(uri: lessonURI, name: "lesson", takeVideo: true, showVideo: showVideo)
        if let liveURI { try addSource(uri: liveURI, name: "live-feed", takeVideo: false, showVideo: false) }
    }

    /// Plays until every input has ended; returns what was heard.
    func playToEnd() throws -> Summary {
        let failure = Mutex<PlayerError?>(nil)
        let subscription = pipeline.bus.subscribe { [meter, logger] message in
            switch message.view {
            case .element(let structure) where structure.name == "level":
                if let rms = structure.doubles("rms"), let peak = structure.doubles("peak"),
                   let duration = structure.clockTime("duration") {
                    meter.add(rms: rms, peak: peak, duration: duration)
                }
            case .error(let error, let debug):
                failure.withLock { $0 = $0 ?? .playbackFailed(element: message.source ?? "?", message: error.message, debug: debug) }
            case .warning(let error, _):
                logger.warning("\(message.source ?? "?"): \(error.message)")
            default:
                break
            }
        }
        defer { subscription.cancel() }

        let started = Date()
        let ended = try pipeline.bus.waitForMessage(timeout: .seconds(3600), after: { () throws(GStreamerError) in
            try pipeline.setState(.playing)
        }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        try pipeline.setState(.null)
        if let error = failure.withLock({ $0 }) { throw error }
        guard ended != nil else { throw PlayerError.stalled(seconds: Date().timeIntervalSince(started)) }
        return meter.summary(output: output)
    }

    /// Adds a decoding branch; its pads are linked as they appear.
    private func addSource(uri: String, name: String, takeVideo: Bool, showVideo: Bool) throws {
        let decode = try ElementFactory.make("uridecodebin", name: "\(name)-decode", properties: ["uri": .string(uri)])
        try pipeline.add(decode)
        let context = BranchContext(pipeline: pipeline, mixer: mixer, name: name, takeVideo: takeVideo,
                                    showVideo: showVideo, syncVideo: output.isRealTime, logger: logger)
        handlers.append(decode.onPadAdded { pad in context.link(pad) })
    }
}

/// What a decoder's pad-added handler needs; runs on a streaming thread.
private struct BranchContext: Sendable {
    let pipeline: Pipeline
    let mixer: Element
    let name: String
    let takeVideo: Bool
    let showVideo: Bool
    let syncVideo: Bool
    let logger: Logger

    func link(_ pad: Pad) {
        let media = pad.currentCaps?.structure()?.name ?? pad.queryCaps().structure()?.name ?? ""
        do {
            if media.hasPrefix("audio/") {
                let chain = [try ElementFactory.make("queue", name: "\(name)-audio-queue"),
                             try ElementFactory.make("audioconvert", name: "\(name)-convert"),
                             try ElementFactory.make("audioresample", name: "\(name)-resample")]
                try attach(chain, from: pad, to: try mixer.requestPad("sink_%u"))
            } else if media.hasPrefix("video/"), takeVideo {
                let sink = showVideo
                    ? try ElementFactory.make("autovideosink", name: "video-sink")
                    : try ElementFactory.make("fakesink", name: "video-sink", properties: ["sync": .bool(syncVideo)])
                let chain = [try ElementFactory.make("queue", name: "\(name)-video-queue"),
                             try ElementFactory.make("videoconvert", name: "\(name)-videoconvert"), sink]
                try attach(chain, from: pad, to: nil)
            } else {
                // Streams we do not play still need a sink, or the decoder stops with not-linked.
                try attach([try ElementFactory.make("fakesink", properties: ["sync": false])], from: pad, to: nil)
            }
        } catch {
            logger.error("cannot play the \(media) stream of the \(name): \(error)")
        }
    }

    private func attach(_ chain: [Element], from pad: Pad, to target: Pad?) throws {
        try pipeline.addLinked(chain)
        if let first = chain.first { try pad.link(to: try first.staticPad("sink")) }
        if let target, let last = chain.last { try last.staticPad("src").link(to: target) }
        for element in chain { try element.syncStateWithParent() }
    }
}
