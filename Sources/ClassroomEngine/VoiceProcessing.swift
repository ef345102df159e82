import ClassroomAudio
import GStreamer

/// The `webrtcdsp` settings of a processing profile.
///
/// webrtcdsp applies these only when it starts (GSTREAMER-NOTES §1), so the engine changes
/// them by cycling the element through NULL behind a blocked pad, never while it plays.
public struct VoiceProcessing: Sendable, Hashable, CustomStringConvertible {
    /// Acoustic echo cancellation against the echo probe's far end.
    public var echoCancel: Bool
    /// Noise suppression.
    public var noiseSuppression: Bool
    /// Automatic gain control.
    public var gainControl: Bool
    /// The 80 Hz high-pass filter.
    public var highPassFilter: Bool
    /// How hard the canceller suppresses what is left of the echo (webrtcdsp `echo-suppression-level`).
    public var echoSuppression: EchoSuppression = .moderate
    /// How hard noise is suppressed (webrtcdsp `noise-suppression-level`).
    public var noiseSuppressionLevel: NoiseSuppressionLevel = .moderate
    /// The canceller's longer filter for long reverberation (webrtcdsp `extended-filter`, its default on).
    public var extendedFilter = true
    /// The uplink's own level control after the canceller (towards −26 dBFS, up to +20 dB, limited,
    /// frozen while the far end plays); not webrtcdsp's, which `gainControl` is.
    public var levelControl = false

    /// webrtcdsp's echo suppression levels, by their GStreamer nicks.
    public enum EchoSuppression: String, Sendable, Hashable, CaseIterable {
        case low, moderate, high
    }

    /// webrtcdsp's noise suppression levels, by their GStreamer nicks.
    public enum NoiseSuppressionLevel: String, Sendable, Hashable, CaseIterable {
        case low, moderate, high
        case veryHigh = "very-high"
    }

    /// The voice profile (what a call needs): AEC, NS high and the high-pass filter; no webrtcdsp AGC, which
    /// lifted residual echo while the canceller converged, but the uplink's level control after it.
    /// The same on both platforms; `apply` writes AEC1's echo suppression and extended filter only where
    /// they act (the measurements: WORKAROUNDS §13).
    public static let voice = VoiceProcessing(echoCancel: true, noiseSuppression: true, gainControl: false, highPassFilter: true,
                                              noiseSuppressionLevel: .high, levelControl: true)

    /// Everything off: the dsp passes audio through bit-identical (measured), for media and raw.
    public static let off = VoiceProcessing(echoCancel: false, noiseSuppression: false, gainControl: false, highPassFilter: false)

    /// The settings a session profile asks for.
    public init(profile: ProcessingProfile) {
        self = profile == .voice ? .voice : .off
    }

    /// The settings a session profile asks for, where the mix can or cannot come back through a microphone.
    ///
    /// On AEC3 the voice profile cancels echo only where it can come back. Played nowhere or into a WAV
    /// file (the player says which), nothing of the mix reaches a microphone, and a fresh AEC3 suppressed
    /// the near end by 30–60 dB in its first 1.5–2.5 s of far end all the same, where AEC1 let it through
    /// (WORKAROUNDS §13, "Start-up on 1.26"); AEC1 keeps its canceller everywhere, as measured on 1.22.
    public init(profile: ProcessingProfile, mixReachesMicrophone: Bool, on platform: Platform = .current) {
        self.init(profile: profile)
        if platform.echoCanceller == .aec3, !mixReachesMicrophone { echoCancel = false }
    }

    /// Settings by feature.
    public init(echoCancel: Bool, noiseSuppression: Bool, gainControl: Bool, highPassFilter: Bool,
                noiseSuppressionLevel: NoiseSuppressionLevel = .moderate, levelControl: Bool = false) {
        self.echoCancel = echoCancel
        self.noiseSuppression = noiseSuppression
        self.gainControl = gainControl
        self.highPassFilter = highPassFilter
        self.noiseSuppressionLevel = noiseSuppressionLevel
        self.levelControl = levelControl
    }

    /// Writes the settings onto a stopped webrtcdsp.
    func apply(to dsp: Element, on platform: Platform = .current) throws(GStreamerError) {
        try dsp.set("echo-cancel", echoCancel)
        try dsp.set("noise-suppression", noiseSuppression)
        try dsp.set("gain-control", gainControl)
        try dsp.set("high-pass-filter", highPassFilter)
        try dsp.set("noise-suppression-level", PropertyValue.enumNick(noiseSuppressionLevel.rawValue))
        // AEC3's webrtcdsp takes these and does nothing with them (deprecated; the 1.26 sweep in
        // WORKAROUNDS §13 measured no difference), so they are written only where they act.
        guard platform.echoCanceller != .aec3 else { return }
        try dsp.set("echo-suppression-level", PropertyValue.enumNick(echoSuppression.rawValue))
        try dsp.set("extended-filter", extendedFilter)
        // Measured: timestamps beat delay-agnostic mode by 20 dB of ERLE (GSTREAMER-NOTES §8).
        try dsp.set("delay-agnostic", false)
    }

    public var description: String {
        func level(_ nick: String) -> String { nick == "moderate" ? "" : "(\(nick))" }
        return self == .off ? "off" : [echoCancel ? "AEC" + level(echoSuppression.rawValue) : nil, noiseSuppression ? "NS" + level(noiseSuppressionLevel.rawValue) : nil,
                                       gainControl ? "AGC" : nil, highPassFilter ? "HPF" : nil, levelControl ? "LC" : nil].compactMap { $0 }.joined(separator: "+")
    }
}
