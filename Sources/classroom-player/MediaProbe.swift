import Foundation
import GStreamer
import Synchronization

/// What `probe` finds in a lesson: its streams, encoded and decoded, its duration and whether
/// the player can play it.
///
///     urisourcebin ► parsebin ─stream N─► queue ► decodebin "decode-N" ► fakesink
///
/// The queue gives each stream its own thread: without it the first stream's sink, prerolled,
/// blocks the demuxer before the second stream has any data (measured: a preroll that never ends).
/// parsebin shows each elementary stream as it is stored (its codec); the decodebin behind it
/// shows whether this machine can decode it. The pipeline prerolls and is torn down.
struct MediaProbe {
    /// One elementary stream.
    struct Stream {
        /// The codec caps, e.g. "audio/x-opus, channels=(int)2, rate=(int)48000".
        var encoded: String
        /// The decoded caps, when it decoded.
        var decoded: String?
        /// Why it cannot be decoded.
        var failure: String?
        /// Its language code (ISO 639), when the file tags it.
        var language: String?

        /// Its channel count, from the stored caps.
        var channels: Int? {
            guard let range = encoded.range(of: "channels=(int)") else { return nil }
            return Int(encoded[range.upperBound...].prefix { $0.isNumber })
        }

        /// The codec, e.g. "audio/x-opus".
        var codec: String { String(encoded.prefix { $0 != "," }) }

        /// "audio", "video", "text" …
        var kind: String { String(encoded.prefix { $0 != "/" }) }
    }

    /// The streams, in the order they appeared.
    var streams: [Stream] = []
    /// The duration, when known.
    var duration: ClockTime?
    /// Whether the source can seek.
    var seekable = false
    /// A failure of the whole file (not found, not a media file).
    var failure: String?

    /// The audio streams, in the order the player numbers its audio tracks.
    var audioTracks: [Stream] { streams.filter { $0.kind == "audio" } }

    /// Whether the lesson's audio can reach the courseware input.
    var canPlay: Bool { failure == nil && streams.contains { $0.kind == "audio" && $0.decoded != nil } }

    /// Why it cannot play, or what it lacks.
    var verdict: String {
        if let failure { return "cannot play: \(failure)" }
        if streams.isEmpty { return "cannot play: no streams were found" }
        let audio = streams.filter { $0.kind == "audio" }
        if audio.isEmpty { return "cannot play: there is no audio stream, so nothing would reach the courseware input" }
        if let broken = audio.first(where: { $0.decoded == nil }), !canPlay {
            return "cannot play: the audio (\(broken.encoded.prefix { $0 != "," })) cannot be decoded here: \(broken.failure ?? "no decoder")"
        }
        var notes: [String] = []
        if !streams.contains(where: { $0.kind == "video" }) { notes.append("no video stream") }
        if let video = streams.first(where: { $0.kind == "video" && $0.decoded == nil }) {
            notes.append("the video cannot be decoded (\(video.failure ?? "no decoder")), the sound plays")
        }
        return notes.isEmpty ? "can play" : "can play (\(notes.joined(separator: "; ")))"
    }

    /// Probes `uri`, waiting at most `timeout` for the pipeline to preroll.
    static func run(uri: String, timeout: ClockTime) throws(GStreamerError) -> MediaProbe {
        let pipeline = try Pipeline(name: "lesson-probe")
        let source = try ElementFactory.make("urisourcebin", name: "probe-source", properties: ["uri": .string(uri)])
        let parse = try ElementFactory.make("parsebin", name: "probe-parse")
        try pipeline.add(source, parse)
        let found = Mutex(MediaProbe())
        let pads = Mutex<[Pad]>([])
        var handlers: [SignalHandler] = []
        handlers.append(source.onPadAdded { pad in
            if let sink = try? parse.staticPad("sink"), !sink.isLinked { try? pad.link(to: sink) }
        })
        let decoderHandlers = Mutex<[SignalHandler]>([])
        handlers.append(parse.onPadAdded { pad in
            let caps = pad.currentCaps ?? pad.queryCaps()
            let index = found.withLock { probe -> Int in
                probe.streams.append(Stream(encoded: caps.description))
                return probe.streams.count - 1
            }
            pads.withLock { $0.append(pad) }
            do throws(GStreamerError) {
                let queue = try ElementFactory.make("queue", name: "probe-queue-\(index)")
                let decode = try ElementFactory.make("decodebin", name: "decode-\(index)")
                try pipeline.addLinked([queue, decode])
                let handler = decode.onPadAdded { raw in
                    let decoded = raw.currentCaps ?? raw.queryCaps()
                    found.withLock { $0.streams[index].decoded = decoded.description }
                    guard let discard = try? ElementFactory.make("fakesink", properties: ["sync": false]) else { return }
                    try? pipeline.add(discard)
                    try? raw.link(to: try discard.staticPad("sink"))
                    try? discard.syncStateWithParent()
                }
                decoderHandlers.withLock { $0.append(handler) }
                try pad.link(to: try queue.staticPad("sink"))
                try decode.syncStateWithParent()
                try queue.syncStateWithParent()
            } catch {
                found.withLock { $0.streams[index].failure = error.description }
            }
        })
        defer {
            _ = try? pipeline.setState(.null)
            handlers.removeAll()
            decoderHandlers.withLock { $0.removeAll() }
        }
        let result = try pipeline.bus.waitForMessage(timeout: timeout, after: { () throws(GStreamerError) in
            _ = try? pipeline.setState(.paused)
        }) { message in
            switch message.view {
            case .asyncDone, .error: return true
            default: return false
            }
        }
        var probe = found.withLock { $0 }
        switch result?.view {
        case .error(let error, let debug)?:
            let detail = debug.flatMap(MediaProbe.missingCodec) ?? error.message
            if let source = result?.source, source.hasPrefix("decode-"), let index = Int(source.dropFirst("decode-".count)), index < probe.streams.count {
                probe.streams[index].failure = detail + MediaProbe.packageHint(for: probe.streams[index].encoded)
            } else {
                probe.failure = detail
            }
        case .asyncDone?:
            // Prerolled: every stream's tags have passed its pad.
            for (index, pad) in pads.withLock({ $0 }).enumerated() where index < probe.streams.count {
                probe.streams[index].language = pad.tag("language-code")
            }
            probe.duration = pipeline.duration()
            probe.seekable = (try? pipeline.seek(to: .zero)) != nil
        default:
            probe.failure = "it did not open within \(timeout) (a stalled network source?)"
        }
        return probe
    }

    /// "Missing decoder: H.264 (Main Profile) (video/x-h264, …)" out of decodebin's debug text.
    private static func missingCodec(_ debug: String) -> String? {
        guard let range = debug.range(of: "Missing decoder: ") else { return nil }
        return "no decoder is installed for " + debug[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The Debian package that usually decodes `caps`.
    private static func packageHint(for caps: String) -> String {
        if caps.hasPrefix("video/x-h264") || caps.hasPrefix("video/x-h265") || caps.hasPrefix("audio/mpeg") {
            return "; install gstreamer1.0-libav (make setup does)"
        }
        return "; a decoder may be in gstreamer1.0-plugins-good, -bad, -ugly or -libav"
    }
}
