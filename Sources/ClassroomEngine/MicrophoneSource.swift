import Foundation
import GStreamer

/// What stands for the student's microphone.
public enum MicrophoneSource: Sendable, Hashable, CustomStringConvertible {
    /// A sound-server source by name (PulseAudio `pulsesrc device=`); nil = the server's default.
    case device(String?)
    /// A file played in real time, as if spoken into the microphone (tests, demos).
    case file(path: String)
    /// Samples pushed by the application through `Uplink.pushedInput` (tests, simulations), in
    /// the uplink format, with running-time timestamps; played in real time.
    case pushed

    /// A capture device, which delivers samples only once they are captured (it paces itself).
    public var isDevice: Bool {
        if case .device = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .device(let name): return name.map { "microphone '\($0)'" } ?? "the default microphone"
        case .file(let path): return "file \(path) as microphone"
        case .pushed: return "pushed samples as microphone"
        }
    }
}
