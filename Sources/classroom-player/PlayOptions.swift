import ArgumentParser
import Foundation

/// `--output`: where the mix is played.
enum OutputChoice: Equatable {
    /// The sound server's default output when one answers, else a WAV file (`--fallback-wav`).
    case auto
    /// The sound server's default output; fails without a sound server.
    case soundServerDefault
    /// A sound-server sink by name.
    case device(String)
    /// A WAV file, written in real time and finalised at the end.
    case wav(String)
    /// Discarded in real time.
    case null

    /// Whether this output plays through (or, auto, prefers) a sound server.
    var usesSoundServer: Bool {
        switch self {
        case .auto, .soundServerDefault, .device: true
        case .wav, .null: false
        }
    }

    static func parse(_ argument: String) throws -> OutputChoice {
        switch argument {
        case "auto": return .auto
        case "default": return .soundServerDefault
        case "null": return .null
        case _ where argument.hasPrefix("wav:"):
            let path = String(argument.dropFirst(4))
            guard !path.isEmpty else { throw ValidationError("wav: needs a path, e.g. --output wav:out/mix.wav") }
            return .wav(path)
        case "": throw ValidationError("use auto, default, a sound-server sink name, wav:PATH or null")
        default: return .device(argument)
        }
    }
}

/// `--mic`: what stands for the student's microphone.
enum MicChoice: Equatable {
    /// The route's input device (none without a sound server).
    case auto
    /// No microphone.
    case none
    /// A file played in real time as the microphone.
    case file(String)
    /// A sound-server source by name.
    case device(String)

    /// Whether this microphone comes from (or, auto, prefers) a sound server.
    var usesSoundServer: Bool {
        switch self {
        case .auto, .device: true
        case .none, .file: false
        }
    }

    /// An existing file is a file; anything else names a sound-server source.
    static func parse(_ argument: String) throws -> MicChoice {
        switch argument {
        case "auto": return .auto
        case "none": return .none
        case "": throw ValidationError("use auto, none, a sound-server source name or a file")
        default:
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) {
                guard !isDirectory.boolValue else { throw ValidationError("'\(argument)' is a folder; give an audio file or a source name") }
                return .file(argument)
            }
            if argument.contains("/") { throw ValidationError("there is no file '\(argument)'") }
            return .device(argument)
        }
    }
}

/// `--video`: where the lesson's picture goes.
enum VideoChoice: Equatable {
    /// A window when a display is there (DISPLAY or WAYLAND_DISPLAY), else decoded and discarded.
    case auto
    /// Not decoded.
    case none
    /// PNG pictures in a folder.
    case snapshots(String)

    static func parse(_ argument: String) throws -> VideoChoice {
        switch argument {
        case "auto": return .auto
        case "none": return .none
        case _ where argument.hasPrefix("snapshots:"):
            let directory = String(argument.dropFirst("snapshots:".count))
            guard !directory.isEmpty else { throw ValidationError("snapshots: needs a folder, e.g. --video snapshots:out/frames") }
            return .snapshots(directory)
        default: throw ValidationError("use auto, none or snapshots:DIR")
        }
    }
}
