import ClassroomEngine
import Foundation

/// What the player can fail with before or while playing, worded for the person at the kiosk:
/// what happened and what to do.
enum PlayerError: Error, CustomStringConvertible {
    /// An input file is missing or unreadable.
    case unreadableInput(role: String, path: String, reason: String)
    /// The timeline file is not a valid timeline.
    case badTimeline(path: String, reason: String)
    /// A named sound-server device does not exist.
    case unknownDevice(role: String, name: String, available: [String])
    /// A sound-server output was asked for but no sound server answered.
    case noSoundServer(option: String)
    /// A file or folder could not be created.
    case cannotWrite(role: String, path: String, reason: String)
    /// The control socket could not be opened.
    case controlSocket(path: String, reason: String)
    /// The lesson could not be played.
    case lessonFailed(EngineError)
    /// The engine failed to start or stopped with an error.
    case engineFailed(String)
    /// Something named on the command line (a feed, an uplink) cannot be used as given.
    case cannotUse(role: String, what: String, reason: String)

    var description: String {
        switch self {
        case .unreadableInput(let role, let path, let reason):
            return "The \(role) '\(path)' cannot be read: \(reason). Check the path (relative paths start in the current folder)."
        case .badTimeline(let path, let reason):
            return "The timeline '\(path)' is not valid: \(reason). See 'classroom-player play --help' for the step format."
        case .unknownDevice(let role, let name, let available):
            let list = available.isEmpty ? "none are connected" : "connected: \(available.joined(separator: ", "))"
            return "There is no \(role) called '\(name)' (\(list)). 'classroom-player devices' lists them; use auto for the route's choice."
        case .noSoundServer(let option):
            // The way around the server is the option's own: a microphone has no WAV output.
            let without = option.hasPrefix("--mic") ? "--mic none or --mic FILE (a recording as the microphone)" : "--output wav:PATH, --output null or --output auto"
            return "No sound server (PulseAudio or PipeWire) answered, and \(option) needs one. Start one (systemctl --user start pipewire-pulse, or pulseaudio), give it time with --wait-for-server SECONDS, or use \(without)."
        case .cannotWrite(let role, let path, let reason):
            return "Cannot create the \(role) '\(path)': \(reason). Choose another path."
        case .controlSocket(let path, let reason):
            return "Cannot open the control socket '\(path)': \(reason)."
        case .lessonFailed(let error):
            // The engine's lesson errors begin with "The lesson cannot be played" themselves.
            let said: String
            switch error {
            case .lessonFailed, .lessonUnplayable: said = error.description
            default: said = "The lesson cannot be played: \(error.description)"
            }
            return "\(said) ('classroom-player probe LESSON' says what is in it)."
        case .engineFailed(let why):
            return "The audio engine failed: \(why)"
        case .cannotUse(let role, let what, let reason):
            return "The \(role) '\(what)' cannot be used: \(reason)."
        }
    }

    /// The process exit status for this failure.
    var exitStatus: ExitStatus {
        switch self {
        case .badTimeline: return .usage
        case .noSoundServer: return .unavailable
        case .unreadableInput, .unknownDevice, .cannotWrite, .controlSocket, .cannotUse: return .cannotStart
        case .lessonFailed, .engineFailed: return .playbackFailed
        }
    }

    /// The option the failing value came from, when one did ("<lesson>" for the lesson argument).
    var option: String? {
        let role: String
        switch self {
        case .unreadableInput(let name, _, _), .unknownDevice(let name, _, _), .cannotWrite(let name, _, _), .cannotUse(let name, _, _):
            role = name
        case .noSoundServer(let option):
            return option.split(separator: " ").first.map(String.init)
        case .badTimeline, .controlSocket, .lessonFailed, .engineFailed:
            return nil
        }
        switch role {
        case "lesson", "audio track": return "<lesson>"
        case "live feed": return "--live"
        case "microphone file", "sound-server input": return "--mic"
        case "sound-server output", "WAV file": return "--output"
        case "snapshot folder": return "--video"
        case "uplink", "uplink WAV file": return "--uplink"
        case "room": return "--room"
        default: return nil
        }
    }

    /// A short reason from a Foundation or POSIX error.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }
}
