import ClassroomEngine
import GStreamer

/// Where an `UplinkSender` sends the processed microphone.
public enum UplinkDestination: Sendable, Hashable, CustomStringConvertible {
    /// A WAV file (S16LE mono 48 kHz), finalised when the sender stops.
    case wav(path: String)
    /// RTP over UDP (Opus or G.711), described by `RTPEndpoint.sessionDescription()`.
    case rtp(RTPEndpoint)
    /// Opus RTP into a webrtcbin of the sender's own pipeline (`UplinkSender.webRTCBin`), whose
    /// jitter buffers hold what it receives for `latency`, in packets of `packetTime` ms (20, or 10
    /// where the room forwards them as they are), each with its audio level (RFC 6464) when
    /// `audioLevels`: a WebRTC room's PeerConnection.
    case webRTC(latency: ClockTime, packetTime: Int, audioLevels: Bool = false)
    /// Encoded nowhere, in real time (tests, and a kiosk whose RTC SDK takes the frames itself).
    case discard

    public var description: String {
        switch self {
        case .wav(let path): return "WAV file \(path)"
        case .rtp(let endpoint): return endpoint.description
        case .webRTC: return "a WebRTC PeerConnection"
        case .discard: return "nowhere"
        }
    }
}
