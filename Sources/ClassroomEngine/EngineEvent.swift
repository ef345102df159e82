import GStreamer

/// What the running graph reports to whoever drives the engine (the session controller).
///
/// Delivered on the engine's bus thread, in order; handlers must return quickly.
public enum EngineEvent: Sendable {
    /// An element failed; the engine keeps running where it can.
    case error(element: String, message: String, debug: String?)
    /// A recoverable problem.
    case warning(element: String, message: String)
    /// The sound server asked to pause (corked: PAUSED) or resume (PLAYING) the output stream.
    case outputStateRequested(State)
    /// A level window: `meter` is the level element's name, `rms` and `peak` are dBFS per channel.
    case level(meter: String, rms: [Double], peak: [Double], runningTime: ClockTime?)
    /// The output device could not be reached (the sound server went away or refused).
    case outputLost(String)
    /// The output device ran out of audio (`underruns` so far); the output buffer is now `buffer`,
    /// raised unless fixed or at its ceiling, and the output latency with it.
    case outputUnderrun(buffer: ClockTime, underruns: Int)
}
