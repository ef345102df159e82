import GStreamer

/// Names and formats of the engine's graphs, declared once (DESIGN §3): the element names are
/// what bus messages, level meters and lookups match on, so each is spelled only here.
public enum EngineGraph {
    /// The engine's pipeline (numbered: each engine has its own).
    public static func pipeline(_ number: Int) -> String { "classroom-engine-\(number)" }
    /// The mixer every input joins.
    public static let mixer = "rtc-mixer"
    /// The mix's format filter after the mixer.
    public static let mixFormat = "mix-format"
    /// The master volume: the session's active volume channel.
    public static let masterVolume = "master-volume"
    /// The level meter on the mix, before the echo probe.
    public static let outputLevel = "output-level"
    /// The output sink (pulsesink, filesink or fakesink).
    public static let outputSink = "output-sink"
    /// The stream property that names the engine's output stream on the sound server, for moving it.
    public static let outputStreamKey = "classroom-audio.output-id"
    /// The WAV encoder in front of a file output.
    public static let outputEncoder = "output-encoder"
    /// The microphone's source element.
    public static let micSource = "mic-src"
    /// The microphone's converter, resampler, format filter, and the pacer of files and pushed samples.
    public static let micConvert = "mic-convert", micResample = "mic-resample", micFormat = "mic-format", micPace = "mic-pace"
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

    /// The elements of an input's chain into the mixer, by the input's id (`courseware`, `rtc-teacher` …).
    public enum Input {
        /// Its appsrc.
        public static func source(_ id: String) -> String { "\(id)-src" }
        /// Its converter, resampler and format filter.
        public static func convert(_ id: String) -> String { "\(id)-convert" }
        public static func resample(_ id: String) -> String { "\(id)-resample" }
        public static func format(_ id: String) -> String { "\(id)-format" }
        /// The courseware's own level meter, before ducking (mediaSuppressed compares it with the output).
        public static func level(_ id: String) -> String { "\(id)-level" }
        /// The courseware's ducking volume.
        public static func duck(_ id: String) -> String { "\(id)-duck" }
    }

    /// The lesson player's pipeline.
    public enum Lesson {
        public static let pipeline = "lesson-player"
        /// The uridecodebin that opens the lesson.
        public static let decode = "lesson-decode"
        /// The video branch: queue, converter, sink.
        public static let videoQueue = "video-queue", videoConvert = "video-convert", videoSink = "video-sink"
        /// The audio branch: the track selector, then queue ► convert ► resample ► scaletempo ► convert ► resample ► appsink.
        public static let audioSelect = "lesson-audio-select", audioQueue = "lesson-audio-queue"
        public static let audioConvert = "lesson-audio-convert", audioResample = "lesson-audio-resample", tempo = "lesson-tempo"
        public static let audioConvertAfterTempo = "lesson-audio-convert2", audioResampleAfterTempo = "lesson-audio-resample2"
        public static let audioSink = "lesson-audio-sink"
        /// scaletempo's stride (its default): it emits whole strides, so at a rate other than 1 its
        /// audio leads or trails its timestamps by up to this much (measured ±24 ms at 0.5–2×).
        public static let tempoStride = ClockTime.milliseconds(30)
    }

    /// A monitor listener's pipeline (names begin with the listener's name).
    public enum Monitor {
        /// The output witness's listener (1032).
        public static let witness = "output-witness"
        public static func source(_ name: String) -> String { "\(name)-src" }
        public static func convert(_ name: String) -> String { "\(name)-convert" }
        public static func resample(_ name: String) -> String { "\(name)-resample" }
        public static func format(_ name: String) -> String { "\(name)-format" }
        public static func sink(_ name: String) -> String { "\(name)-sink" }
    }

    /// The mix format: S16LE interleaved stereo at 48 kHz, which webrtcechoprobe accepts.
    public static let outputFormat = AudioFormat(format: .s16, rate: 48_000, channels: 2)
    /// The uplink format: S16LE mono at the probe's rate, what webrtcdsp processes best.
    public static let uplinkFormat = AudioFormat(format: .s16, rate: 48_000, channels: 1)
    /// The DSP's frame: 10 ms.
    public static let frameDuration = ClockTime.milliseconds(10)
}
