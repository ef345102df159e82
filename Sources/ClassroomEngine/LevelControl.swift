import Foundation

/// The uplink's level control on 10 ms S16 frames, after the echo canceller: a gain that follows
/// the talker's active speech level towards a target (slowly up, faster down, within a ceiling),
/// and a peak limiter behind it so no sample reaches full scale. Pure arithmetic, one owner.
///
/// A frame is speech when it stands `speechAboveFloor` above the tracked noise floor and above
/// `speechFloor`; the level and the gain move only on speech frames the caller lets adapt (the far
/// end silent), so pauses, noise and echo never pull the gain.
struct LevelControl: Sendable {
    /// How the control behaves; the defaults are the voice profile's.
    struct Settings: Sendable {
        /// The active speech level the uplink aims for: ITU-T P.56's nominal −26 dBov.
        var target = -26.0
        /// The gain never goes above this (dB) nor below unity: a quiet room is not turned into a loud one.
        var ceiling = 20.0
        /// How fast the gain rises, in dB per second of adapting speech.
        var rise = 6.0
        /// How fast it falls, in dB per second of adapting speech.
        var fall = 24.0
        /// A speech frame stands this far above the noise floor (dB).
        var speechAboveFloor = 10.0
        /// And above this level (dBFS): quieter frames are room, not a talker. At −60, AEC3's residual
        /// room noise after NS (about −61 dBFS from −45) counted as speech and was lifted ~17 dB (WORKAROUNDS §13).
        var speechFloor = -50.0
        /// How long the speech level averages over (seconds of speech).
        var levelWindow = 1.0
        /// How much speech the level needs before the gain moves (seconds): a talker's first syllables
        /// read low and lifted a −18 dBFS talker 2.1 dB before the level caught up (measured).
        var levelWarmUp = 0.3
        /// How fast the noise floor may rise (dB per second); it falls at once.
        var floorRise = 1.0
        /// A frame with this many zero samples in a row (1 ms) is not all signal: a gap's edge, or a pause
        /// of zeros; no microphone's noise holds 1 ms of exact zeros. The floor is learned again from the
        /// next frame without one. The room's microphone handed the DSP some frames, then 0.5 s of zeros,
        /// then room noise the suppressor had not yet taken out (−46 to −50 dBFS for up to 1.5 s): a floor
        /// lowered by the zeros, or started by the frame where the noise began, took that noise for a
        /// talker and lifted it 0.5–4.4 dB for good (the noise row on AEC3: 11.5 dB, 17.1 without the control).
        var zeroRun = 48
        /// How long the gain stays put at the start, while the suppressor converges and the floor is first
        /// learned (seconds of signal; AEC3 took 0.5–1.5 s). Later zeros do not restart it: a talker whose
        /// pauses are zeros, as espeak-ng's, would never be lifted.
        var floorWarmUp = 1.0
        /// The limiter keeps every sample at or below this (dBFS).
        var limit = -1.0
        /// How fast the limiter lets go (time constant, seconds).
        var limiterRelease = 0.08
    }

    let settings: Settings
    /// The gain in force, dB.
    private(set) var gain = 0.0
    /// The tracked noise floor, dBFS.
    private(set) var noiseFloor: Double?
    /// The talker's active speech level before the gain (mean power over speech frames), dBFS; nil before any speech.
    var speechLevel: Double? { speechFrames > 0 ? 10 * log10(max(speechPower, 1e-10)) : nil }
    /// Speech frames averaged so far (the mean is plain until the window is full).
    private var speechFrames = 0
    private var speechPower = 0.0
    /// The limiter's peak envelope, in samples of full scale 32768.
    private var envelope: Float = 0
    /// Seconds of signal so far (counted up to `floorWarmUp`).
    private var heard = 0.0

    init(settings: Settings = Settings()) { self.settings = settings }

    /// Applies the gain and the limiter to `samples` (48 kHz mono) in place; moves the gain first if
    /// the frame is speech and `adapt` allows. Returns whether the frame counted as speech.
    @discardableResult
    mutating func process(_ samples: UnsafeMutableBufferPointer<Int16>, adapt: Bool) -> Bool {
        guard !samples.isEmpty else { return false }
        var sum = 0.0, zeros = 0, longestZeros = 0
        for sample in samples {
            sum += Double(sample) * Double(sample)
            zeros = sample == 0 ? zeros + 1 : 0
            longestZeros = max(longestZeros, zeros)
        }
        let power = sum / Double(samples.count) / (32768.0 * 32768.0)
        let level = 10 * log10(max(power, 1e-10))
        let frameSeconds = Double(samples.count) / 48_000
        let speech = classify(level, signal: longestZeros < settings.zeroRun, frameSeconds: frameSeconds)
        let before = gain
        if speech && adapt && heard >= settings.floorWarmUp { follow(power: power, frameSeconds: frameSeconds) }
        apply(to: samples, from: before, to: gain)
        return speech
    }

    /// Tracks the noise floor (from the first frame that is all signal: down at once, up slowly) and
    /// says whether `level` is speech.
    private mutating func classify(_ level: Double, signal: Bool, frameSeconds: Double) -> Bool {
        guard signal else {
            noiseFloor = nil
            return false
        }
        heard = min(heard + frameSeconds, settings.floorWarmUp)
        let floor = noiseFloor ?? level
        noiseFloor = level < floor ? level : floor + settings.floorRise * frameSeconds
        return level >= settings.speechFloor && level >= floor + settings.speechAboveFloor
    }

    /// Folds a speech frame into the level and moves the gain towards the target.
    private mutating func follow(power: Double, frameSeconds: Double) {
        speechFrames += 1
        let window = max(1, Int(settings.levelWindow / frameSeconds))
        speechPower += (power - speechPower) / Double(min(speechFrames, window))
        guard let level = speechLevel, Double(speechFrames) * frameSeconds >= settings.levelWarmUp else { return }
        let wanted = min(max(settings.target - level, 0), settings.ceiling)
        if wanted > gain {
            gain = min(wanted, gain + settings.rise * frameSeconds)
        } else {
            gain = max(wanted, gain - settings.fall * frameSeconds)
        }
    }

    /// The gain, ramped across the frame from `start` to `end` dB, then the limiter: an envelope that
    /// takes each peak at once (no look-ahead) and lets go with `limiterRelease`.
    private mutating func apply(to samples: UnsafeMutableBufferPointer<Int16>, from start: Double, to end: Double) {
        let limit = Float(32768 * pow(10, settings.limit / 20))
        let release = Float(exp(-1 / (settings.limiterRelease * 48_000)))
        let first = Float(pow(10, start / 20)), last = Float(pow(10, end / 20))
        let step = (last - first) / Float(samples.count)
        var envelope = self.envelope
        for index in samples.indices {
            var value = Float(samples[index]) * (first + step * Float(index + 1))
            let magnitude = abs(value)
            envelope = magnitude > envelope ? magnitude : envelope * release
            if envelope > limit { value *= limit / envelope }
            samples[index] = Int16(clamping: Int(value.rounded()))
        }
        self.envelope = envelope
    }
}
