import GStreamer
import Synchronization

/// The uplink's level control in the graph (issue #23): a `LevelControl` on the DSP's 10 ms output
/// frames, frozen while the far end's echo may be in the frame. It owns the control; the
/// microphone's streaming thread runs it, the output's tells it when the far end plays.
///
/// webrtcdsp's own gain control stays off: it lifted residual echo while the canceller converged
/// (WORKAROUNDS §13). This one moves only on near-end speech with the far end silent.
final class UplinkGainControl: Sendable {
    /// When the far end counts as active, and how long its echo lasts.
    struct Settings: Sendable {
        /// A far-end buffer louder than this (RMS, full scale 1) is active: −50 dBFS, the echo-path estimator's floor.
        var farEndFloor: Float = 0.003
        /// How long after its path the echo of an active far end may still be heard (the room's tail, RT60 0.4 s, and some).
        var echoTail: ClockTime = .milliseconds(450)
        /// The echo path assumed until the estimator settles: the longest it searches.
        var unknownEchoPath: ClockTime = .milliseconds(600)
    }

    let settings: Settings
    private let control: Mutex<LevelControl>
    private let enabled: Atomic<Bool>
    /// The play time (ns) at which the newest active far-end buffer ends; 0 before any.
    private let farEndActiveUntil = Atomic<UInt64>(0)
    /// The echo path the estimator settled on, ns; `UInt64.max` until it did.
    private let echoPathNanoseconds = Atomic<UInt64>(.max)
    private let gainBits = Atomic<UInt64>(0.0.bitPattern)
    private let frozenSpeech = Atomic<Int>(0)
    private let adaptedSpeech = Atomic<Int>(0)

    init(enabled: Bool, settings: Settings = Settings(), level: LevelControl.Settings = .init()) {
        self.settings = settings
        self.enabled = Atomic(enabled)
        control = Mutex(LevelControl(settings: level))
    }

    /// Whether frames are processed; off, they pass untouched (the media and raw profiles).
    var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    func setEnabled(_ on: Bool) { enabled.store(on, ordering: .relaxed) }

    /// The gain in force, dB (0 while off or before any speech).
    var gain: Double { Double(bitPattern: gainBits.load(ordering: .relaxed)) }

    /// Speech frames on which the far end froze the gain, and on which it adapted.
    var speechFrames: (frozen: Int, adapted: Int) { (frozenSpeech.load(ordering: .relaxed), adaptedSpeech.load(ordering: .relaxed)) }

    /// Output streaming thread: a far-end buffer of `duration` that plays at `playTime`.
    func recordFarEnd(_ buffer: Buffer, playTime: ClockTime, duration: ClockTime) {
        guard isEnabled else { return }
        let power = buffer.withInt16Samples { samples -> Float in
            var sum: Float = 0
            for sample in samples { sum += Float(sample) * Float(sample) }
            return sum / Float(max(samples.count, 1)) / (32768 * 32768)
        } ?? 0
        guard power.squareRoot() >= settings.farEndFloor else { return }
        let end = playTime.nanoseconds + duration.nanoseconds
        var seen = farEndActiveUntil.load(ordering: .relaxed)
        while seen < end {
            let (exchanged, original) = farEndActiveUntil.compareExchange(expected: seen, desired: end, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    /// The estimator settled on `delay`: the far end's echo is looked for there from now on.
    func setEchoPath(_ delay: ClockTime) { echoPathNanoseconds.store(delay.nanoseconds, ordering: .relaxed) }

    /// Whether the echo of an active far end may be in the microphone frame captured at `captureTime`:
    /// the far end played within its echo path and tail before it (or plays later: it is stored ahead).
    func farEndMayBeHeard(at captureTime: ClockTime?) -> Bool {
        let activeUntil = farEndActiveUntil.load(ordering: .relaxed)
        guard activeUntil > 0 else { return false }
        // Without a capture time nothing can be ruled out.
        guard let captureTime else { return true }
        let path = echoPathNanoseconds.load(ordering: .relaxed)
        let reach = (path == .max ? settings.unknownEchoPath.nanoseconds : path) + settings.echoTail.nanoseconds
        return activeUntil + reach >= captureTime.nanoseconds
    }

    /// Microphone streaming thread: gains and limits one DSP output frame captured at `captureTime`, in place.
    func process(_ samples: UnsafeMutableBufferPointer<Int16>, captureTime: ClockTime?) {
        let frozen = farEndMayBeHeard(at: captureTime)
        let (speech, gain) = control.withLock { control in (control.process(samples, adapt: !frozen), control.gain) }
        gainBits.store(gain.bitPattern, ordering: .relaxed)
        guard speech else { return }
        if frozen { frozenSpeech.add(1, ordering: .relaxed) } else { adaptedSpeech.add(1, ordering: .relaxed) }
    }
}
