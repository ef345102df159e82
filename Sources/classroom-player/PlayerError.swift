/// What the player can fail with, worded for the person at the kiosk.
enum PlayerError: Error, CustomStringConvertible {
    /// An input file is missing or unreadable.
    case unreadableInput(role: String, path: String, reason: String)
    /// `--output default` was asked for but no sound server answered.
    case noSoundServer
    /// The WAV file could not be created.
    case cannotWrite(path: String, reason: String)
    /// Playback stopped with an error from GStreamer.
    case playbackFailed(element: String, message: String, debug: String?)
    /// Playback did not finish in the time the media should take.
    case stalled(seconds: Double)

    var description: String {
        switch self {
        case .unreadableInput(let role, let path, let reason):
            return "The \(role) '\(path)' cannot be read: \(reason)."
        case .noSoundServer:
            return "No sound server (PulseAudio/PipeWire) answered. Start one, or use --output wav:PATH or --output auto."
        case .cannotWrite(let path, let reason):
            return "Cannot write the WAV file '\(path)': \(reason). Choose another path with --output wav:PATH."
        case .playbackFailed(let element, let message, let debug):
            return "Playback stopped in '\(element)': \(message)" + (debug.map { "\n  details: \($0)" } ?? "")
        case .stalled(let seconds):
            return "Playback made no progress for \(Int(seconds)) s and was stopped; the input may be damaged."
        }
    }

    var exitCode: Int32 {
        switch self {
        case .unreadableInput, .noSoundServer, .cannotWrite: return 1
        case .playbackFailed, .stalled: return 2
        }
    }
}
