import Dispatch
import Glibc
import GStreamer
import Synchronization

/// Finds the echo path by itself: GCC-PHAT between the far end (by play time) and the microphone
/// (by capture time), over the last `window` whenever the far end carries speech.
///
/// The streaming-thread taps only copy into locked histories; the correlation runs on its own
/// queue every `interval`. A delay is applied only once two analyses in a row agree (hysteresis)
/// and, in both, it lines up more of the microphone with the far end than the path in force does:
/// a canceller moved to a path that cancels no better can only lose what it had converged on.
/// A step in the capture or play timestamps starts the search afresh, so no window mixes both sides of it.
/// `onChange` is called with each delay applied.
final class EchoPathEstimator: Sendable {
    /// What the estimator looks at and how sure it must be.
    struct Settings: Sendable {
        /// The longest echo path searched.
        var longestPath: ClockTime = .milliseconds(600)
        /// How far below zero the search reaches (a device reporting too much latency).
        var earliestPath: ClockTime = .milliseconds(20)
        /// How much microphone audio one analysis correlates.
        var window: ClockTime = .seconds(1)
        /// How often an analysis runs.
        var interval: ClockTime = .milliseconds(500)
        /// The far end must be at least this loud (RMS, full scale 1) for an analysis to count: −50 dBFS.
        var farEndFloor: Float = 0.003
        /// Below this confidence an analysis is ignored.
        var minimumConfidence: Double = 0.25
        /// Two analyses agree when they are this close.
        var agreement: ClockTime = .milliseconds(4)
        /// A new delay replaces the applied one only when it differs by more.
        var hysteresis: ClockTime = .milliseconds(8)
        /// A new delay replaces the applied one only when one tap at it explains at least this many
        /// times more of the microphone's energy (3 dB) than one at the applied delay, in each agreeing analysis.
        var betterBy: Float = 2
        /// A timestamp this far from where its history ends is a step (as a DISCONT is).
        var timestampStep: ClockTime = .milliseconds(10)
    }

    private struct Tracking: Sendable {
        var applied: EchoPathEstimate?
        var latest: EchoPathEstimate?
        var candidate: ClockTime?
        var agreeing = 0
        var lastAnalysedEnd: UInt64 = 0
        var restarts = 0
    }

    let settings: Settings
    private let farEnd: Mutex<DecimatedHistory>
    private let microphone: Mutex<DecimatedHistory>
    private let tracking = Mutex(Tracking())
    private let onChange: @Sendable (EchoPathEstimate) -> Void
    private let queue = DispatchQueue(label: "classroom-audio.echo-path", qos: .utility)
    private let running = Atomic<Bool>(false)
    /// CPU time spent in the taps and the analyses, in ns (the benchmark's "≤ 1 % of a core").
    private let cpuNanoseconds = Atomic<UInt64>(0)

    init(settings: Settings = Settings(), onChange: @escaping @Sendable (EchoPathEstimate) -> Void) {
        self.settings = settings
        let seconds = settings.window.seconds + settings.longestPath.seconds + settings.interval.seconds + 1
        farEnd = Mutex(DecimatedHistory(seconds: seconds + 0.5))
        microphone = Mutex(DecimatedHistory(seconds: seconds))
        self.onChange = onChange
    }

    /// The delay in force (the last one that two analyses agreed on).
    var applied: EchoPathEstimate? { tracking.withLock { $0.applied } }

    /// The last analysis that passed the confidence floor.
    var latest: EchoPathEstimate? { tracking.withLock { $0.latest } }

    /// The CPU time the estimator has used so far, on every thread it runs on.
    var cpuTime: ClockTime { ClockTime(nanoseconds: cpuNanoseconds.load(ordering: .relaxed)) }

    /// Streaming thread: far-end audio that plays at `playTime`. A step in the play times (the output
    /// latency changed) moves every later path as a capture step does, so it starts the search afresh too.
    func recordFarEnd(_ samples: [Int16], channels: Int, playTime: ClockTime) {
        accountingCPU { record(samples, channels: channels, at: playTime, into: farEnd, discontinuity: false) }
    }

    /// Streaming thread: microphone audio captured at `captureTime`. After a `discontinuity` (or a
    /// step in the timestamps) the audio before it no longer lines up with the far end the same way,
    /// so the history and the pending candidate are dropped; the delay in force stays until a new one is found.
    func recordMicrophone(_ samples: [Int16], channels: Int, captureTime: ClockTime, discontinuity: Bool = false) {
        accountingCPU { record(samples, channels: channels, at: captureTime, into: microphone, discontinuity: discontinuity) }
    }

    /// Appends to `history`, first dropping it and the pending candidate when the audio does not
    /// continue it: no analysis window then straddles two alignments of far end and microphone.
    private func record(_ samples: [Int16], channels: Int, at time: ClockTime, into history: borrowing Mutex<DecimatedHistory>, discontinuity: Bool) {
        let restarted = history.withLock { history -> Bool in
            let step = ClockTime(nanoseconds: history.end).distance(to: time)
            let restart = !history.isEmpty && (discontinuity || step > settings.timestampStep)
            if restart { history.clear() }
            history.append(samples, channels: channels, at: time.nanoseconds)
            return restart
        }
        guard restarted else { return }
        tracking.withLock { tracking in
            tracking.candidate = nil
            tracking.agreeing = 0
            tracking.restarts += 1
        }
    }

    /// How often the search started afresh after a step in the capture or play timestamps.
    var restarts: Int { tracking.withLock { $0.restarts } }

    /// Puts `estimate` in force as if two analyses had agreed on it, and calls `onChange`: a path
    /// known from elsewhere (or, in a test, a wrong one the guard has to undo).
    func impose(_ estimate: EchoPathEstimate) {
        tracking.withLock { tracking in
            tracking.applied = estimate
            tracking.candidate = nil
            tracking.agreeing = 0
        }
        onChange(estimate)
    }

    /// Runs `work`, adding the calling thread's CPU time for it to `cpuTime`.
    private func accountingCPU(_ work: () -> Void) {
        let start = Self.threadCPUNanoseconds()
        work()
        let end = Self.threadCPUNanoseconds()
        cpuNanoseconds.add(end > start ? end - start : 0, ordering: .relaxed)
    }

    private static func threadCPUNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Starts the periodic analysis.
    func start() {
        running.store(true, ordering: .releasing)
        scheduleNext()
    }

    private func scheduleNext() {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(settings.interval.nanoseconds))) { [weak self] in
            guard let self, self.running.load(ordering: .acquiring) else { return }
            self.accountingCPU { self.analyseLatest() }
            self.scheduleNext()
        }
    }

    /// Stops the periodic analysis.
    func stop() { running.store(false, ordering: .releasing) }

    /// One analysis over the newest complete window, folded into the tracking.
    func analyseLatest() {
        let earliestSpan = settings.earliestPath.nanoseconds
        // The far end must reach `earliestPath` past the window; normally it is 100 ms ahead (it is stored by play time).
        let micEnd = min(microphone.withLock { $0.end }, farEnd.withLock { $0.end }.subtractingReportingOverflow(earliestSpan).partialValue)
        let windowCount = Int(settings.window.nanoseconds / DecimatedHistory.samplePeriod)
        let span = UInt64(windowCount) * DecimatedHistory.samplePeriod
        guard micEnd > span, micEnd > tracking.withLock({ $0.lastAnalysedEnd }) else { return }
        let micStart = micEnd - span
        guard let mic = microphone.withLock({ $0.segment(from: micStart, count: windowCount) }) else { return }
        let longest = Int(settings.longestPath.nanoseconds / DecimatedHistory.samplePeriod)
        let earliest = Int(settings.earliestPath.nanoseconds / DecimatedHistory.samplePeriod)
        let farStartTime = micStart.subtractingReportingOverflow(UInt64(longest) * DecimatedHistory.samplePeriod)
        guard !farStartTime.overflow,
              let far = farEnd.withLock({ $0.segment(from: farStartTime.partialValue, count: windowCount + longest + earliest) })
        else { return }
        tracking.withLock { $0.lastAnalysedEnd = micEnd }
        guard let analysis = EchoPathAnalysis(far: far, mic: mic, longest: longest, earliest: earliest, floor: settings.farEndFloor)
        else { return }
        fold(analysis)
    }

    /// Applies an estimate once two confident ones in a row agree, it moved by more than the
    /// hysteresis and it explains the microphone `betterBy` more than the delay in force.
    private func fold(_ analysis: EchoPathAnalysis) {
        let estimate = analysis.estimate
        guard estimate.confidence >= settings.minimumConfidence else { return }
        let changed = tracking.withLock { tracking -> EchoPathEstimate? in
            tracking.latest = estimate
            let better = tracking.applied.map { applied in
                analysis.explained(by: estimate.delay, within: settings.agreement)
                    >= settings.betterBy * analysis.explained(by: applied.delay, within: settings.agreement)
            } ?? true
            guard better else {
                // The delay in force lines the echo up as well: nothing to gain from moving the canceller.
                tracking.candidate = nil
                tracking.agreeing = 0
                return nil
            }
            if let candidate = tracking.candidate, candidate.distance(to: estimate.delay) <= settings.agreement {
                tracking.agreeing += 1
            } else {
                tracking.candidate = estimate.delay
                tracking.agreeing = 1
            }
            guard tracking.agreeing >= 2 else { return nil }
            if let applied = tracking.applied, applied.delay.distance(to: estimate.delay) <= settings.hysteresis { return nil }
            tracking.applied = estimate
            return estimate
        }
        if let changed { onChange(changed) }
    }
}
