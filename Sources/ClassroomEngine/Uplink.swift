import Foundation
import GStreamer
import Synchronization

/// One processed 10 ms microphone frame for the RTC SDK.
public struct UplinkFrame: Sendable {
    /// S16LE mono 48 kHz samples: 480 of them.
    public let samples: [Int16]
    /// The frame's running time in the engine.
    public let timestamp: ClockTime?

    /// A frame from elsewhere than the engine's microphone chain (a sender fed by the application).
    public init(samples: [Int16], timestamp: ClockTime?) {
        self.samples = samples
        self.timestamp = timestamp
    }
}

/// The microphone chain: source → convert → 10 ms framing → webrtcdsp → level control → level → mute → appsink.
///
/// It exists only while a lease records. The output chain does not change when it comes and
/// goes, which is what makes connecting the microphone gapless.
public final class Uplink: Sendable {
    /// What stands for the microphone.
    public let source: MicrophoneSource
    /// For `.pushed` sources: where the application pushes "microphone" samples (uplink format, running-time PTS).
    public let pushedInput: AppSource?

    let elements: [Element]
    let dsp: Element
    /// The pacing after the framer: its source pad hands the DSP whole frames at their time.
    let feed: Element
    let mute: Element
    let sink: AppSink
    /// The level control on the DSP's output (on with `VoiceProcessing.levelControl`).
    let gainControl: UplinkGainControl
    private let processing: Mutex<VoiceProcessing>
    private let frames = Atomic<Int>(0)
    /// How much earlier the DSP treats frames now, in ns (the echo-path estimator moves it).
    private let compensationNanoseconds: Atomic<UInt64>
    private let estimator: Mutex<EchoPathEstimator?> = Mutex(nil)
    /// The estimator's taps; the far-end one sits on the output chain, which outlives this chain.
    private let echoPathTaps = Mutex<[PadProbe]>([])
    /// The level control's taps: its gain on the DSP's output, and the far end on the output chain.
    private let levelControlTaps = Mutex<[PadProbe]>([])
    private let tokens: Mutex<[any AnyObject & Sendable]>
    /// A profile switch waiting for the chain's next frame (nothing flowed when it was asked for).
    private let pendingSwitch = Mutex<PadProbe?>(nil)
    /// Where a switch that failed after `reconfigure` returned is reported.
    private let report: @Sendable (EngineEvent) -> Void

    init(source: MicrophoneSource, pushedInput: AppSource?, elements: [Element], dsp: Element, feed: Element,
         mute: Element, sink: AppSink, processing: VoiceProcessing, compensation: ClockTime, tokens: [any AnyObject & Sendable],
         report: @escaping @Sendable (EngineEvent) -> Void) {
        compensationNanoseconds = Atomic(compensation.nanoseconds)
        gainControl = UplinkGainControl(enabled: processing.levelControl)
        self.source = source; self.pushedInput = pushedInput; self.elements = elements
        self.dsp = dsp; self.feed = feed; self.mute = mute; self.sink = sink
        self.processing = Mutex(processing)
        self.tokens = Mutex(tokens)
        self.report = report
    }

    /// The DSP settings in force.
    public var voiceProcessing: VoiceProcessing { processing.withLock { $0 } }

    /// The level control's gain in force, dB: 0 with it off, and until a near-end talker moved it.
    public var gain: Double { gainControl.gain }

    /// Near-end speech frames on which the far end froze the gain, and on which the gain adapted.
    public var gainSpeechFrames: (frozen: Int, adapted: Int) { gainControl.speechFrames }

    /// Processed frames handed to the callback so far.
    public var framesDelivered: Int { frames.load(ordering: .relaxed) }

    func countFrame() { frames.add(1, ordering: .relaxed) }

    func keep(_ token: any AnyObject & Sendable) { tokens.withLock { $0.append(token) } }

    /// How much earlier than its capture time the DSP treats each frame now.
    public var echoPathCompensation: ClockTime { ClockTime(nanoseconds: compensationNanoseconds.load(ordering: .acquiring)) }

    /// The echo path the estimator settled on (two analyses agreeing); nil until then.
    public var echoPath: EchoPathEstimate? { estimator.withLock { $0?.applied } }

    /// The CPU time the echo-path estimator has used on this chain (its taps and analyses).
    public var echoPathEstimatorCPU: ClockTime { estimator.withLock { $0?.cpuTime ?? .zero } }

    /// The estimator's last confident analysis, settled or not.
    public var latestEchoPathAnalysis: EchoPathEstimate? { estimator.withLock { $0?.latest } }

    func attach(_ echoPathEstimator: EchoPathEstimator, taps: [PadProbe]) {
        estimator.withLock { $0 = echoPathEstimator }
        echoPathTaps.withLock { $0 = taps }
        echoPathEstimator.start()
    }

    func attachLevelControl(taps: [PadProbe]) { levelControlTaps.withLock { $0 = taps } }

    /// Stops the estimator and removes its taps and the level control's (the chain is going); its last estimate stays readable.
    func detachEchoPath() {
        estimator.withLock { $0?.stop() }
        for tap in echoPathTaps.withLock({ taps in defer { taps = [] }; return taps }) { tap.remove() }
        for tap in levelControlTaps.withLock({ taps in defer { taps = [] }; return taps }) { tap.remove() }
    }

    /// Moves the DSP's view of the microphone `compensation` earlier. A pad offset moves running
    /// time only, so the probe serves older far end and the frames keep their capture timestamps.
    /// On the pacing's source pad, after it waited on capture time: a source pad re-sends its segment with a new offset on the next
    /// push; a new offset on the DSP's sink pad while playing left no uplink frame lined up with its mic frame (measured).
    func setEchoPathCompensation(_ compensation: ClockTime) throws(GStreamerError) {
        compensationNanoseconds.store(compensation.nanoseconds, ordering: .releasing)
        try feed.staticPad("src").offset = -Int64(compensation.nanoseconds)
    }

    deinit { detachEchoPath() }

    /// Mutes or unmutes what goes up (interruptions); the chain keeps running so the DSP stays converged.
    public func setMuted(_ muted: Bool) throws(EngineError) {
        try EngineError.wrap { () throws(GStreamerError) in try mute.set("mute", muted) }
    }

    /// Whether the uplink is muted.
    public var isMuted: Bool { (try? mute.bool("mute")) ?? false }

    /// Calls `handler` with every microphone buffer as captured, before the DSP and its echo-path
    /// offset (capture timestamps), on the streaming thread; keep the probe. For measurement.
    public func tapCapture(_ handler: @escaping @Sendable (Buffer) -> Void) throws(EngineError) -> PadProbe? {
        let pad = try EngineError.wrap { () throws(GStreamerError) in try feed.staticPad("src") }
        return pad.addProbe(.buffer) { info in
            if let buffer = info.buffer { handler(buffer) }
            return .ok
        }
    }

    /// Switches the DSP to `settings` before the next frame reaches it: the paced frames are
    /// blocked on the streaming thread, the DSP restarts through NULL with the new settings (it
    /// reads them only when it starts) and the frame goes on. Waits up to `wait` for that frame;
    /// a chain with nothing flowing (a pushed source not yet pushing) keeps the switch pending
    /// until its next frame, which is the same to every frame. A restart that fails on that later
    /// frame is reported through `report`.
    ///
    /// Only on the streaming thread: an idle probe ran on whichever thread passed the pad next (the
    /// caller's, or a latency query's), and a frame then met the stopped DSP: FLUSHING paused the
    /// source's task for good and the uplink went silent (1 CI run; 3 of 5 runs with latency
    /// queries running beside the switches; WORKAROUNDS §25). Measured on 1.22: 0.2–0.3 ms inside
    /// the probe, no timestamp gap with 10 ms input.
    public func reconfigure(_ settings: VoiceProcessing, wait: ClockTime = .milliseconds(100)) throws(EngineError) {
        guard settings != voiceProcessing else { return }
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<GStreamerError?>(nil)
        let waiting = Atomic<Bool>(true)
        let dsp = self.dsp
        let report = self.report
        let pad = try EngineError.wrap { () throws(GStreamerError) in try feed.staticPad("src") }
        let probe = pad.addProbe([.block, .buffer, .bufferList]) { _ in
            do {
                try dsp.setState(.null)
                try settings.apply(to: dsp)
                try dsp.syncStateWithParent()
            } catch {
                let error = (error as? GStreamerError) ?? .failed("\(error)")
                failure.withLock { $0 = error }
                if !waiting.load(ordering: .acquiring) {
                    report(.error(element: dsp.name, message: "the voice processing did not restart with its new settings", debug: "\(error)"))
                }
            }
            done.signal()
            return .remove
        }
        // A later switch supersedes one still pending: it is the last one that counts.
        pendingSwitch.withLock { pending in pending?.remove(); pending = probe }
        let switched = done.wait(timeout: .now() + .nanoseconds(Int(wait.nanoseconds))) == .success
        waiting.store(false, ordering: .releasing)
        if switched { pendingSwitch.withLock { if $0 === probe { $0 = nil } } }
        if let error = failure.withLock({ $0 }) { throw .gstreamer(error) }
        gainControl.setEnabled(settings.levelControl)
        processing.withLock { $0 = settings }
    }
}
