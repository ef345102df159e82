import ClassroomEngine

/// Where a peer's audio comes from: a file played in real time, RTP/UDP with Opus, the stream an
/// SDP file describes, or a network URI that uridecodebin opens (RTSP, SRT, HTTP).
public enum PeerSource: Sendable, Hashable, CustomStringConvertible {
    /// A local file (`uri` is its file:// URI), played in real time.
    case file(path: String, uri: String)
    /// RTP over UDP carrying Opus on a dynamic payload type (`payloadType` pins one), received on
    /// `address:port`; with `key`, SRTP (srtp://), and what fails its authentication is never played.
    case rtp(address: String, port: Int, payloadType: Int?, key: SRTPKey? = nil)
    /// The RTP stream an SDP file describes: Opus, PCMU, PCMA or L16 on any payload type.
    case sessionDescription(SessionDescription)
    /// rtsp://, srt://, http:// or https://, opened by uridecodebin.
    case network(uri: String)

    public var description: String {
        switch self {
        case .file(let path, _): return path
        case .rtp(let address, let port, let payloadType, let key):
            return "\(key == nil ? "rtp" : "srtp")://\(address.contains(":") ? "[\(address)]" : address):\(port)" + (payloadType.map { "?pt=\($0)" } ?? "")
        case .sessionDescription(let description): return description.path
        case .network(let uri): return uri
        }
    }
}
