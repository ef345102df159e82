import GStreamer

/// Everything the classroom engine can fail with, each case readable by a kiosk operator.
public enum EngineError: Error, Sendable, CustomStringConvertible {
    /// GStreamer refused something; the wrapped error says what.
    case gstreamer(GStreamerError)
    /// An input with this id already exists.
    case duplicateInput(String)
    /// No input with this id exists (it was removed, or never added).
    case unknownInput(String)
    /// The declared input format is not one the engine mixes.
    case unsupportedFormat(AudioFormat, reason: String)
    /// Samples pushed to an input do not fit its declared format.
    case wrongSamples(input: String, reason: String)
    /// A push was timestamped earlier than audio the input already has; it was refused.
    case timestampWentBackwards(input: String, by: ClockTime)
    /// The input was removed; pushes to it are refused.
    case inputRemoved(String)
    /// The microphone could not be opened.
    case microphoneUnavailable(String)
    /// A device the user named (an output sink, a microphone source) is not connected.
    case deviceNotConnected(String)
    /// The lesson could not be opened or played.
    case lessonFailed(String)
    /// The lesson cannot be played, for a reason the operator can act on; `detail` is what GStreamer said.
    case lessonUnplayable(LessonProblem, detail: String)
    /// No picture could be written: no video shown yet, none decoded, or the file not writable.
    case snapshotFailed(String)
    /// The engine is not running.
    case notRunning
    /// The sound server would not move the output stream to `device` (nil: its default sink).
    case outputNotMoved(device: String?, reason: String)
    /// The output could not be finalised (a WAV file may be incomplete).
    case outputNotFinalized(String)
    /// An RTP destination or source that cannot be used (`what` as the user wrote it).
    case badEndpoint(String, reason: String)
    /// A session description (SDP) that cannot be played.
    case badSessionDescription(path: String, reason: String)
    /// An uplink could not be started or written.
    case uplinkFailed(String)
    /// An SRTP key (a key file, or an SDP's `a=crypto`) that cannot be used; `origin` is where it came from, never the key.
    case badKey(String, reason: String)

    public var description: String {
        switch self {
        case .gstreamer(let error):
            return error.description
        case .duplicateInput(let id):
            return "An input called '\(id)' is already mixed; remove it first or use another id."
        case .unknownInput(let id):
            return "No input called '\(id)' is mixed."
        case .unsupportedFormat(let format, let reason):
            return "The input format \(format) cannot be mixed: \(reason)."
        case .wrongSamples(let input, let reason):
            return "Samples pushed to '\(input)' were refused: \(reason)."
        case .timestampWentBackwards(let input, let by):
            return "Audio pushed to input '\(input)' was timestamped \(by) before the end of audio it already has, and was refused; timestamps must not go backwards (push with no timestamp to let the engine place the audio)."
        case .inputRemoved(let id):
            return "The input '\(id)' has been removed; nothing more can be pushed to it."
        case .microphoneUnavailable(let why):
            return "The microphone cannot be opened: \(why)."
        case .deviceNotConnected(let why):
            return "The device named is not connected: \(why). List the connected ones with `classroom-player devices`."
        case .lessonFailed(let why):
            return "The lesson cannot be played: \(why)."
        case .lessonUnplayable(let problem, let detail):
            return "The lesson cannot be played (\(problem.rawValue)): \(detail). What to do: \(problem.advice)."
        case .snapshotFailed(let why):
            return "No snapshot was written: \(why)."
        case .notRunning:
            return "The audio engine is not running; start it first."
        case .outputNotMoved(let device, let reason):
            return "The output stayed where it plays instead of moving to \(device.map { "'\($0)'" } ?? "the server's default sink"): \(reason)."
        case .outputNotFinalized(let why):
            return "The output was not finalised: \(why)."
        case .badEndpoint(let what, let reason):
            return "'\(what)' cannot be used: \(reason)."
        case .badSessionDescription(let path, let reason):
            return "The session description '\(path)' cannot be played: \(reason)."
        case .uplinkFailed(let why):
            return "The uplink failed: \(why)."
        case .badKey(let origin, let reason):
            return "The SRTP key in '\(origin)' cannot be used: \(reason)."
        }
    }
}

extension EngineError {
    /// Runs `body`, wrapping GStreamer errors.
    static func wrap<T>(_ body: () throws(GStreamerError) -> T) throws(EngineError) -> T {
        do { return try body() } catch { throw .gstreamer(error) }
    }
}
