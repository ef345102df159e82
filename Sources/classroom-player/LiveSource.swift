import Foundation

/// Where `--live FEED` comes from: a file played in real time, RTP/UDP with Opus, or a network
/// URI that uridecodebin opens (RTSP, SRT, HTTP).
enum LiveSource: Sendable, Equatable, CustomStringConvertible {
    /// A local file, played in real time.
    case file(path: String, uri: String)
    /// RTP over UDP carrying Opus (payload type 96 by default, 48 kHz RTP clock), received on `host:port`.
    case rtp(host: String, port: Int)
    /// rtsp://, srt://, http:// or https://, opened by uridecodebin.
    case network(uri: String)

    /// The schemes passed to uridecodebin as they are.
    static let networkSchemes = ["rtsp", "rtsps", "srt", "http", "https"]

    /// Resolves what the user typed; a file must exist and be readable.
    static func resolve(_ argument: String) throws(PlayerError) -> LiveSource {
        let lower = argument.lowercased()
        if lower.hasPrefix("rtp://") { return try rtp(argument) }
        if let scheme = lower.split(separator: ":", maxSplits: 1).first, networkSchemes.contains(String(scheme)), lower.contains("://") {
            return .network(uri: argument)
        }
        let uri = try MediaLocation.uri(for: argument, role: "live feed")
        guard uri.hasPrefix("file://") else {
            throw .unreadableInput(role: "live feed", path: argument,
                                   reason: "the scheme is not one of rtp, \(networkSchemes.joined(separator: ", ")) or a file")
        }
        return .file(path: argument, uri: uri)
    }

    /// `rtp://HOST:PORT`: HOST is the address to listen on (127.0.0.1, 0.0.0.0 for all, or a multicast group).
    private static func rtp(_ argument: String) throws(PlayerError) -> LiveSource {
        let rest = argument.dropFirst("rtp://".count)
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port) else {
            throw .unreadableInput(role: "live feed", path: argument, reason: "an RTP feed is rtp://HOST:PORT, e.g. rtp://127.0.0.1:5004")
        }
        let host = String(rest[..<colon])
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-"))
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(allowed.contains) else {
            throw .unreadableInput(role: "live feed", path: argument, reason: "'\(host)' is not a host name or IPv4 address to listen on")
        }
        return .rtp(host: host, port: port)
    }

    var description: String {
        switch self {
        case .file(let path, _): return path
        case .rtp(let host, let port): return "rtp://\(host):\(port)"
        case .network(let uri): return uri
        }
    }
}
