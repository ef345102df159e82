import Dispatch
import Glibc
import GStreamer
import Synchronization

/// Finds the echo path by itself: GCC-PHAT between the far end (by play time) and the microphone
/// (by capture time), over the last `window` whenever the far end carries speech.
///
/// The streaming-thread taps only copy into locked histories; the correlation runs on its own
/// queue every `interval`. A delay is applied only once two analyses in a row agree (hysteresis),
/// and `onChange` is called with it.
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
    }

    private struct Tracking: Sendable {
        var applied: EchoPathEstimate?
        var latest: EchoPathEstimate?
        var candidate: ClockTime?
        var agreeing = 0
        var lastAnalysedEnd: UInt64 = 0
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

    /// Streaming thread: far-end audio that plays at `playTime`.
    func recordFarEnd(_ samples: [Int16], channels: Int, playTime: ClockTime) {
        accountingCPU { farEnd.withLock { $0.append(samples, channels: channels, at: playTime.nanoseconds) } }
    }

    /// Streaming thread: microphone audio captured at `captureTime`.
    func recordMicrophone(_ samples: [Int16], channels: Int, captureTime: ClockTime) {
        accountingCPU { microphone.withLock { $0.append(samples, channels: channels, at: captureTime.nanoseconds) } }
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
        guard let estimate = Self.correlate(far: far, mic: mic, longest: longest, earliest: earliest, floor: settings.farEndFloor)
        else { return }
        fold(estimate)
    }

    /// GCC-PHAT: `far` starts `longest` samples before `mic`; returns the lag at which `mic`
    /// follows `far`, or nil when the far end is too quiet or the FFT cannot be planned.
    static func correlate(far: [Float], mic: [Float], longest: Int, earliest: Int, floor: Float) -> EchoPathEstimate? {
        let farPower = far.reduce(0) { $0 + $1 * $1 } / Float(max(far.count, 1))
        guard farPower.squareRoot() >= floor, mic.contains(where: { $0 != 0 }) else { return nil }
        let length = RealFFT.fastLength(atLeast: far.count + mic.count)
        guard let fft = try? RealFFT(length: length + length % 2) else { return nil }
        let farSpectrum = fft.forward(far)
        let micSpectrum = fft.forward(mic)
        // Cross-spectrum far·conj(mic), whitened (PHAT): only the phase, i.e. the delay, remains.
        let whitened = zip(farSpectrum, micSpectrum).map { x, y -> SpectrumBin in
            let real = x.real * y.real + x.imaginary * y.imaginary
            let imaginary = x.imaginary * y.real - x.real * y.imaginary
            let magnitude = (real * real + imaginary * imaginary).squareRoot() + 1e-12
            return SpectrumBin(real: real / magnitude, imaginary: imaginary / magnitude)
        }
        let correlation = fft.inverse(whitened)
        // correlation[m] peaks where mic[n] ≈ far[n + m], i.e. at m = longest − path.
        let searched = 0...(longest + earliest)
        guard let peak = searched.max(by: { correlation[$0] < correlation[$1] }), correlation[peak] > 0 else { return nil }
        // The best competitor outside ±5 ms of the peak (reflections sit within it).
        let guardBand = 5 * DecimatedHistory.rate / 1_000
        let rival = searched.filter { abs($0 - peak) > guardBand }.map { correlation[$0] }.max() ?? 0
        let confidence = Double(max(0, min(1, 1 - max(rival, 0) / correlation[peak])))
        let path = longest - peak
        guard path >= 0 else { return EchoPathEstimate(delay: .zero, confidence: confidence) }
        return EchoPathEstimate(delay: ClockTime(nanoseconds: UInt64(path) * DecimatedHistory.samplePeriod), confidence: confidence)
    }

    /// Applies an estimate once two confident ones in a row agree and it moved by more than the hysteresis.
    private func fold(_ estimate: EchoPathEstimate) {
        guard estimate.confidence >= settings.minimumConfidence else { return }
        let changed = tracking.withLock { tracking -> EchoPathEstimate? in
            tracking.latest = estimate
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
