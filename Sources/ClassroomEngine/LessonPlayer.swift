import ClassroomAudio
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// Plays a lesson file in its own pipeline — pausable, seekable, non-live — and hands its audio
/// to the engine's courseware input (the mixed stream), so the lesson and RTC always share one
/// output, one volume and one processing profile.
///
///     uridecodebin ─video─► queue ► videoconvert ► video-sink (delayed by the engine's latency)
///          └─audio (each track)─► input-selector ► queue ► audioconvert ► audioresample ► scaletempo ► S16LE 48 kHz stereo ► appsink ─► courseware input
///
/// Pausing or seeking it never touches the engine: the courseware input just stops being fed
/// and the live mixer fills the gap with silence.
public final class LessonPlayer: Sendable {
    /// Where the lesson's picture goes.
    public enum VideoOutput: Sendable, Hashable {
        /// A window (autovideosink).
        case window
        /// Decoded and discarded in time (headless kiosks, tests); `snapshot(to:)` writes the
        /// frame that would be on screen.
        case discard
        /// No video decoding at all.
        case none
        /// Each frame handed to a tap when it is presented (measurement: A/V sync).
        case frames(VideoFrameTap)
    }

    /// What the lesson reports.
    public enum Event: Sendable {
        /// The lesson played to its end.
        case ended
        /// The lesson failed; RTC and the engine are unaffected.
        case failed(String)
    }

    /// The lesson's URI.
    public let uri: String
    let pipeline: Pipeline
    private let courseware: AudioInput
    private let logger: Logger
    private let observers = ObserverRegistry<Event>()
    private let tokens = Locked<[any AnyObject & Sendable]>([])
    private let firstFailure = FirstFailure<(problem: LessonProblem, detail: String)>()
    /// decodebin's "No decoder available for type …" warning, which names the codec its error does not.
    private let missingDecoder = Locked<String?>(nil)
    private let tracks: LessonAudioTracks
    private let rate = Mutex<Double>(1)
    /// How late the video is shown: the engine's output latency, which an output underrun raises,
    /// plus how far ahead of its arrival the courseware places the audio.
    private let videoDelay: Locked<ClockTime>

    /// Builds the lesson pipeline for `uri`; `videoDelay` is the engine's output latency, so
    /// pictures and sound stay together. `audioTrack` (0-based) is the track heard of a lesson with several.
    public init(uri: String, courseware: AudioInput, video: VideoOutput, videoDelay: ClockTime, audioTrack: Int = 0, logger: Logger) throws(EngineError) {
        self.uri = uri
        self.courseware = courseware
        self.logger = logger
        tracks = LessonAudioTracks(wanted: audioTrack)
        let videoDelay = Locked(videoDelay + courseware.placedAhead)
        self.videoDelay = videoDelay
        do {
            pipeline = try Pipeline(name: EngineGraph.Lesson.pipeline)
            pipeline.useClock(try Clock.system())
            // The audio queue's thread pushes the courseware (real-time, as the mixer it feeds); the
            // demuxing and decoding upstream of it, video included, stay at normal priority.
            courseware.scheduleFeeder(pipeline, only: [EngineGraph.Lesson.audioQueue])
            let decode = try ElementFactory.make("uridecodebin", name: EngineGraph.Lesson.decode, properties: ["uri": .string(uri)])
            try pipeline.add(decode)
            let branch = LessonBranches(pipeline: pipeline, courseware: courseware, video: video, videoDelay: videoDelay,
                                        logger: logger, tokens: tokens, tracks: tracks)
            tokens.withLock { $0.append(decode.onPadAdded { pad in branch.link(pad) }) }
        } catch {
            throw .lessonFailed(error.description)
        }
        let subscription = pipeline.bus.subscribe { [weak self] message in self?.handle(message) }
        tokens.withLock { $0.append(subscription) }
    }

    /// Reports lesson events; keep the token.
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        observers.add(handler)
    }

    /// How long opening may take before the lesson counts as stuck. A failure ends the wait at
    /// once, and a good file opens in milliseconds; the margin is for a kiosk busy with a class.
    static let openTimeout = ClockTime.seconds(10)

    /// Opens the file and prerolls it, paused, without playing (see `openTimeout`); throws
    /// `lessonUnplayable` (with the reason classified) when it cannot be played. Nothing reaches
    /// the courseware input yet: a lesson to come is checked while the one before it plays on.
    public func preroll() throws(EngineError) {
        guard pipeline.state < .paused else { return }
        try change(to: .paused)
    }

    /// Starts or resumes playback; prerolls first when not yet done, and throws like `preroll`.
    public func play() throws(EngineError) {
        // Preroll first: straight to PLAYING, each late-added sink rendered ahead of the base time (WORKAROUNDS §14).
        try preroll()
        try change(to: .playing)
    }

    private func change(to state: State) throws(EngineError) {
        do {
            try pipeline.setState(state, waitingUpTo: Self.openTimeout, unless: { failed() })
        } catch {
            // The reason (file not found, no decoder …) is on the bus; give it a moment to arrive.
            _ = firstFailure.wait(upTo: .milliseconds(500))
            _ = try? pipeline.setState(.null)
            throw failureError ?? .lessonUnplayable(.other, detail: error.description)
        }
        if let failure = failureError { throw failure }
    }

    /// True once the lesson has failed: an error arrived, or a demuxer stopped before it exposed a
    /// stream and no error came (decodebin dropped it, WORKAROUNDS §32), which stands for that error.
    private func failed() -> Bool {
        if firstFailure.current != nil { return true }
        guard let stalled = StalledDemuxer.find(in: pipeline) else { return false }
        // Its error, when decodebin passed it on, is on its way: the bus's moment, then stand in for it.
        guard firstFailure.wait(upTo: .milliseconds(500)) == nil else { return true }
        report(stalled.failure(uri: uri), debug: "no error reached the bus: decodebin dropped it (WORKAROUNDS §32)")
        return true
    }

    /// Keeps `failure` when it is the first, logs it and tells the observers; a later one (an error
    /// after the stand-in, or a second error) is logged only: a lesson fails once.
    private func report(_ failure: (problem: LessonProblem, detail: String), debug: String) {
        let metadata: Logger.Metadata = ["problem": "\(failure.problem.rawValue)", "debug": "\(debug)"]
        guard firstFailure.record(failure) else {
            logger.notice("lesson failed again: \(failure.detail)", metadata: metadata)
            return
        }
        logger.error("lesson failed: \(failure.detail)", metadata: metadata)
        observers.notify(.failed(failure.detail))
    }

    /// The first failure as an error; a missing decoder names the codec (decodebin says it in a warning).
    private var failureError: EngineError? {
        guard let failure = firstFailure.current else { return nil }
        var detail = failure.detail
        if failure.problem == .noDecoder, let codec = missingDecoder.withLock({ $0 }) { detail += " (\(codec))" }
        return .lessonUnplayable(failure.problem, detail: detail)
    }

    /// Pauses; the engine and RTC keep running.
    public func pause() throws(EngineError) {
        try EngineError.wrap { () throws(GStreamerError) in _ = try pipeline.setState(.paused, waitingUpTo: .seconds(5)) }
    }

    /// Stops and releases the file.
    public func stop() { _ = try? pipeline.setState(.null) }

    /// True while playing.
    public var isPlaying: Bool { pipeline.state == .playing }

    /// The lesson position.
    public var position: ClockTime? { pipeline.position() }

    /// The lesson duration, once known.
    public var duration: ClockTime? { pipeline.duration() }

    /// Seeks to `position` at `rate`, or at the current rate.
    public func seek(to position: ClockTime, rate: Double? = nil) throws(EngineError) {
        let rate = rate ?? playbackRate
        try EngineError.wrap { () throws(GStreamerError) in try pipeline.seek(to: position, rate: rate) }
        self.rate.withLock { $0 = rate }
        _ = pipeline.currentState(waitingUpTo: .seconds(5))
    }

    /// Plays at `rate` (0.5…2) from the current position; scaletempo keeps the pitch.
    public func setRate(_ rate: Double) throws(EngineError) {
        guard (0.5...2).contains(rate) else {
            throw .lessonFailed("the playback rate must be between 0.5 and 2, not \(rate)")
        }
        try seek(to: position ?? .zero, rate: rate)
    }

    /// The playback rate (1 unless changed).
    public var playbackRate: Double { rate.withLock { $0 } }

    /// The lesson's audio tracks, in order, with their language codes where the file has them.
    public var audioTracks: [String?] { tracks.languages }

    /// The audio track heard (0-based).
    public var selectedAudioTrack: Int { tracks.selected }

    /// Shows the video `delay` after its time from now on: the engine's new output latency after an
    /// output underrun raised it, so pictures and sound stay together.
    public func setVideoDelay(_ delay: ClockTime) {
        let delay = delay + courseware.placedAhead
        videoDelay.withLock { $0 = delay }
        guard let sink = pipeline.element(named: EngineGraph.Lesson.videoSink) else { return }
        do {
            try sink.set("ts-offset", .int(Int64(delay.nanoseconds)))
        } catch {
            logger.warning("the video stays \(delay.milliseconds) ms from the sound: its delay could not be set: \(error)")
        }
    }

    /// Switches to another audio track while playing (a bilingual lesson), without a gap.
    public func selectAudioTrack(_ index: Int) throws(EngineError) { try tracks.select(index) }

    /// Writes the frame the video sink presented last — what the screen shows now — as a PNG at
    /// `path`, and returns its lesson position. Throws when the lesson decodes no video (video
    /// output `none`, an audio-only file), no frame was shown yet, or the file cannot be written.
    @discardableResult
    public func snapshot(to path: String) throws(EngineError) -> ClockTime? {
        guard let sink = pipeline.element(named: EngineGraph.Lesson.videoSink) else {
            throw .snapshotFailed("the lesson shows no video (the video output is 'none', or the file has no video stream)")
        }
        // autovideosink is a bin: the frame is kept by the real sink inside it.
        let sinks = [sink] + ((try? pipeline.element(named: EngineGraph.Lesson.videoSink, as: Bin.self))?.children ?? [])
        guard let frame = sinks.lazy.compactMap(\.lastSample).first else {
            throw .snapshotFailed("no frame has been shown yet; play the lesson first")
        }
        let png = try EngineError.wrap { () throws(GStreamerError) in try frame.converted(to: try Caps("image/png")) }
        guard let bytes = png.buffer?.bytes(), !bytes.isEmpty else { throw .snapshotFailed("the PNG encoder returned no data") }
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .snapshotFailed("cannot write \(path): \(error.localizedDescription)")
        }
        return frame.buffer?.pts
    }

    private func handle(_ message: Message) {
        switch message.view {
        case .endOfStream:
            observers.notify(.ended)
        case .warning(let error, _) where error.message.hasPrefix("No decoder available"):
            missingDecoder.withLock { $0 = error.message }
        case .error(let error, let debug):
            // Resource errors ("Resource not found.") do not say which: name the lesson.
            report((LessonProblem.classify(error), "\(error.message) [\(message.source ?? "lesson") on \(uri)]"), debug: debug ?? "")
        default:
            return
        }
    }

    deinit {
        _ = try? pipeline.setState(.null)
        // The pad-added handler's closure holds the token list: clearing it breaks that cycle.
        tokens.withLock { $0.removeAll() }
    }
}
