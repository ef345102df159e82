import Foundation
import GStreamer
import Logging
import Synchronization

/// `--video snapshots:DIR`: a PNG of the lesson's picture at its current position every interval.
///
/// The lesson player has no snapshot output yet, so this is a thumbnailer of its own: a second,
/// paused decoder of the same lesson, seeked to the lesson player's position before each picture.
/// It follows pauses and seeks by construction (a paused lesson gives no new pictures), at the
/// cost of one decode per picture. When the lesson player grows a snapshot output, this goes.
///
///     uridecodebin ─video─► videoconvert ► pngenc ► appsink (preroll pulled after each seek)
///          └─other─► fakesink
final class Snapshotter: Sendable {
    /// The folder the pictures go to.
    let directory: URL
    private let interval: Double
    private let pipeline: Pipeline
    private let sink: AppSink
    private let queue = DispatchQueue(label: "classroom-player.snapshots")
    private let state = Mutex(State())
    private let tokens = Mutex<[any AnyObject & Sendable]>([])

    private struct State {
        var timer: TimerBox?
        var lastPosition: ClockTime?
        var count = 0
        var failed = false
    }

    /// DispatchSource is thread-safe; Dispatch just does not declare it Sendable.
    private struct TimerBox: @unchecked Sendable {
        let source: DispatchSourceTimer
    }

    /// Prepares a decoder of `uri`; nothing is decoded before `start`.
    init(uri: String, directory: URL, interval: Double, logger: Logger) throws(GStreamerError) {
        self.directory = directory
        self.interval = interval
        pipeline = try Pipeline(name: "lesson-snapshots")
        let decode = try ElementFactory.make("uridecodebin", name: "snapshot-decode", properties: ["uri": .string(uri)])
        sink = try AppSink.make(name: "snapshot-sink")
        try sink.configure(caps: nil, maxBuffers: 1, drop: true, sync: false)
        let chain = [try ElementFactory.make("videoconvert", name: "snapshot-convert"), try ElementFactory.make("pngenc", name: "snapshot-png"), sink]
        try pipeline.add(decode)
        try pipeline.addLinked(chain)
        let pipeline = self.pipeline
        let entry = chain[0]
        let handler = decode.onPadAdded { pad in
            let media = pad.currentCaps?.structure()?.name ?? pad.queryCaps().structure()?.name ?? ""
            do {
                let videoPad = try entry.staticPad("sink")
                if media.hasPrefix("video/"), !videoPad.isLinked {
                    try pad.link(to: videoPad)
                } else {
                    let discard = try ElementFactory.make("fakesink", properties: ["sync": false, "async": false])
                    try pipeline.add(discard)
                    try pad.link(to: try discard.staticPad("sink"))
                    try discard.syncStateWithParent()
                }
            } catch {
                logger.warning("snapshots: cannot use the lesson's \(media) stream: \(error)")
            }
        }
        tokens.withLock { $0.append(handler) }
    }

    /// Takes a picture every interval at `position()`; `onSnapshot` gets the file and position,
    /// `onFailure` the reason when pictures cannot be taken (then they stop).
    func start(position: @escaping @Sendable () -> ClockTime?, onSnapshot: @escaping @Sendable (String, ClockTime) -> Void,
               onFailure: @escaping @Sendable (String) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(Int(interval * 1000)))
        timer.setEventHandler { [weak self] in
            guard let self, let now = position() else { return }
            do throws(Failure) {
                if let file = try self.take(at: now) { onSnapshot(file, now) }
            } catch {
                guard !self.state.withLock({ state in defer { state.failed = true }; return state.failed }) else { return }
                onFailure(error.message)
                self.state.withLock { $0.timer?.source.cancel() }
            }
        }
        state.withLock { $0.timer = TimerBox(source: timer) }
        timer.resume()
    }

    /// Stops taking pictures and releases the decoder.
    func stop() {
        state.withLock { $0.timer?.source.cancel(); $0.timer = nil }
        queue.sync {}
        _ = try? pipeline.setState(.null)
        tokens.withLock { $0.removeAll() }
    }

    /// Pictures written so far.
    var count: Int { state.withLock { $0.count } }

    private struct Failure: Error {
        let message: String
    }

    /// Writes the picture at `position`; nil when the lesson has not moved since the last one.
    private func take(at position: ClockTime) throws(Failure) -> String? {
        guard state.withLock({ $0.lastPosition }) != position else { return nil }
        do {
            if pipeline.state != .paused { try pipeline.setState(.paused, waitingUpTo: .seconds(5)) }
            try pipeline.seek(to: position)
            _ = pipeline.currentState(waitingUpTo: .seconds(5))
        } catch {
            throw Failure(message: "the lesson's picture cannot be decoded: \(error)")
        }
        guard let bytes = sink.pullPreroll(timeout: .seconds(2))?.buffer?.bytes(), !bytes.isEmpty else {
            throw Failure(message: "no picture came within 2 s at \(position) (does the lesson have a video stream?)")
        }
        let number = state.withLock { state -> Int in state.count += 1; state.lastPosition = position; return state.count }
        let file = directory.appendingPathComponent(String(format: "snapshot-%04d.png", number))
        do {
            try Data(bytes).write(to: file)
        } catch {
            throw Failure(message: "cannot write \(file.path): \(PlayerError.reason(error))")
        }
        return file.path
    }
}
