import GStreamer

/// Names and formats of the engine's graph, declared once (DESIGN §3).
public enum EngineGraph {
    /// The mixer every input joins.
    public static let mixer = "rtc-mixer"
    /// The master volume: the session's active volume channel.
    public static let masterVolume = "master-volume"
    /// The level meter on the mix, before the echo probe.
    public static let outputLevel = "output-level"
    /// The output sink (pulsesink, filesink or fakesink).
    public static let outputSink = "output-sink"
    /// The microphone's source element.
    public static let micSource = "mic-src"
    /// The 10 ms re-framer in front of the DSP.
    public static let micSplit = "mic-split"
    /// The WebRTC voice processor.
    public static let voiceDSP = "voice-dsp"
    /// The level meter on what the microphone captured, before the DSP (1031 reads it).
    public static let micCaptureLevel = "mic-capture-level"
    /// The level meter on the processed uplink.
    public static let micLevel = "mic-level"
    /// The mute stage of the uplink (interruptions).
    public static let uplinkMute = "uplink-mute"
    /// The appsink handing 10 ms frames to the RTC SDK.
    public static let uplinkSink = "uplink-sink"

    /// The mix format: S16LE interleaved stereo at 48 kHz, which webrtcechoprobe accepts.
    public static let outputFormat = AudioFormat(format: .s16, rate: 48_000, channels: 2)
    /// The uplink format: S16LE mono at the probe's rate, what webrtcdsp processes best.
    public static let uplinkFormat = AudioFormat(format: .s16, rate: 48_000, channels: 1)
    /// The DSP's frame: 10 ms.
    public static let frameDuration = ClockTime.milliseconds(10)
}
