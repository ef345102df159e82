/// The GStreamer this process runs on, and what its `webrtcdsp` cancels echo with: the one place
/// code asks when Debian 12 (GStreamer 1.22, WebRTC's AEC1) and Debian 13 (1.26, AEC3) differ.
///
/// The canceller is a build-time choice of gst-plugins-bad (webrtc-audio-processing 0.3 or 1.x),
/// not implied by the version, so it is read from the element itself: built on 1.x, webrtcdsp marks
/// the knobs AEC3 has no counterpart for (`echo-suppression-level`, `extended-filter`,
/// `delay-agnostic`) deprecated (`gst-inspect-1.0 webrtcdsp`: flagged on 1.26.2 with
/// libwebrtc-audio-processing-1.so.3, not on 1.22.0 with libwebrtc_audio_processing.so.1 (0.3)).
public struct Platform: Sendable, Hashable, CustomStringConvertible {
    /// WebRTC's echo canceller generations.
    public enum EchoCanceller: String, Sendable, Hashable {
        /// webrtc-audio-processing 0.3 (Debian 12): AEC1, with suppression levels and an extended filter.
        case aec1 = "AEC1"
        /// webrtc-audio-processing 1.x (Debian 13): AEC3, which has neither.
        case aec3 = "AEC3"

        /// How long an echo path, counted from the far end webrtcdsp hands it, the canceller finds and
        /// aligns to by itself; nil where it trusts the timestamps instead.
        ///
        /// AEC1 with `delay-agnostic` off cancels only about 5–50 ms above the timestamps (WORKAROUNDS §12),
        /// so the engine moves each measured path into that window. AEC3 always runs its own delay
        /// estimator: 5 matched filters of 32 sub-blocks, 24 apart, at 4 kHz (`EchoCanceller3Config.delay`,
        /// `kMatchedFilterWindowSizeSubBlocks`, webrtc-audio-processing 1.3), lags 0–512 ms, its linear filter
        /// 13 blocks (52 ms) from there. Moved under it, AEC3 loses the echo until it has found it again:
        /// ERLE 10–28 dB for 2.5 s after a 25 ms move at a 50 ms path (WORKAROUNDS §12, "On 1.26").
        public var delaySearch: ClockTime? {
            switch self {
            case .aec1: nil
            case .aec3: .milliseconds(512)
            }
        }
    }

    /// The runtime GStreamer version (`gst_version`).
    public let version: GStreamer.Version
    /// What `webrtcdsp` cancels echo with; nil when the plugin is missing.
    public let echoCanceller: EchoCanceller?

    /// The platform of this process (GStreamer must be initialised; asked once, it cannot change).
    public static var current: Platform { detected }

    private static let detected: Platform = {
        try? GStreamer.initialize()   // asked before the caller initialised: answer, do not cache a missing plugin
        let dsp = try? ElementFactory.make("webrtcdsp")
        let aec3 = (try? dsp?.isDeprecated("echo-suppression-level")) ?? nil
        return Platform(version: GStreamer.version, echoCanceller: aec3.map { $0 ? .aec3 : .aec1 })
    }()

    /// A platform by its parts (tests, and a report about another platform).
    public init(version: GStreamer.Version, echoCanceller: EchoCanceller?) {
        self.version = version
        self.echoCanceller = echoCanceller
    }

    /// "GStreamer 1.26.2, AEC3".
    public var description: String {
        "GStreamer \(version)" + (echoCanceller.map { ", \($0.rawValue)" } ?? ", no webrtcdsp")
    }
}
