/// What went wrong talking to the sound server, said for a kiosk operator.
public enum PulseAudioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server did not accept the connection (not running, or another user's).
    case connectionFailed(String)
    /// The server did not answer within the time allowed.
    case timedOut(String)
    /// No stream of this process carries the tag (it is not connected yet, or the server dropped it).
    case streamNotFound(key: String, value: String)
    /// The server refused the request (a sink that does not exist, a stream that went away).
    case refused(String)

    public var description: String {
        switch self {
        case .connectionFailed(let reason):
            return "cannot connect to the sound server: \(reason); check that PulseAudio or pipewire-pulse runs for this user"
        case .timedOut(let what):
            return "the sound server did not answer in time while \(what); it may be overloaded or restarting"
        case .streamNotFound(let key, let value):
            return "the sound server has no playback stream with \(key)=\(value) (not connected yet, or gone)"
        case .refused(let reason):
            return "the sound server refused the request: \(reason)"
        }
    }
}
