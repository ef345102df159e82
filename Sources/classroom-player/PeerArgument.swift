import ClassroomEngine
import ClassroomNetwork
import Foundation

/// What `--live [ID=]FEED` and the `peer` verb name: an optional id and where the audio comes
/// from — a file played in real time, `rtp://HOST:PORT[?pt=N]` (Opus), an SDP file, or a
/// network URI that uridecodebin opens (RTSP, SRT, HTTP).
struct PeerArgument: Sendable, Equatable {
    /// The id given before `=`, if any.
    let id: String?
    /// Where the audio comes from.
    let source: PeerSource

    /// The schemes passed to uridecodebin as they are.
    static let networkSchemes = ["rtsp", "rtsps", "srt", "http", "https"]

    /// A peer id: letters, digits, '-' and '_', 1 to 32 of them.
    static func isValidID(_ id: String) -> Bool {
        (1...32).contains(id.count) && id.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }
    }

    /// Splits `ID=FEED` (an existing file whose name contains '=' stays a file) and resolves the feed.
    static func parse(_ argument: String) throws(PlayerError) -> PeerArgument {
        if let equals = argument.firstIndex(of: "="), !FileManager.default.fileExists(atPath: argument) {
            let id = String(argument[..<equals])
            if !id.contains("/"), !id.contains(":") {
                guard isValidID(id) else {
                    throw .cannotUse(role: "live feed", what: argument, reason: "'\(id)' is not a peer id: use 1 to 32 letters, digits, '-' or '_', e.g. teacher=rtp://0.0.0.0:5004")
                }
                return PeerArgument(id: id, source: try resolve(String(argument[argument.index(after: equals)...])))
            }
        }
        return PeerArgument(id: nil, source: try resolve(argument))
    }

    /// Resolves what the user typed; a file must exist and be readable, an SDP file must describe audio.
    static func resolve(_ argument: String) throws(PlayerError) -> PeerSource {
        let lower = argument.lowercased()
        if lower.hasPrefix("rtp://") || lower.hasPrefix("srtp://") { return try rtp(argument) }
        if let scheme = lower.split(separator: ":", maxSplits: 1).first, networkSchemes.contains(String(scheme)), lower.contains("://") {
            return .network(uri: argument)
        }
        let uri = try MediaLocation.uri(for: argument, role: "live feed")
        guard uri.hasPrefix("file://") else {
            throw .cannotUse(role: "live feed", what: argument,
                                   reason: "the scheme is not one of rtp, \(networkSchemes.joined(separator: ", ")) or a file")
        }
        if lower.hasSuffix(".sdp") {
            do {
                return .sessionDescription(try SessionDescription.load(path: argument))
            } catch {
                throw .cannotUse(role: "live feed", what: argument, reason: PeerArgument.reason(error))
            }
        }
        return .file(path: argument, uri: uri)
    }

    /// `rtp://HOST:PORT[?pt=N]` or `srtp://HOST:PORT?key-file=FILE[&pt=N]`: HOST is the address to
    /// listen on (127.0.0.1, 0.0.0.0 for all, or a multicast group); the key comes from the file.
    private static func rtp(_ argument: String) throws(PlayerError) -> PeerSource {
        let secure = argument.lowercased().hasPrefix("srtp://")
        let example = secure ? "an SRTP feed is srtp://HOST:PORT?key-file=FILE, e.g. srtp://127.0.0.1:5004?key-file=/etc/classroom/teacher.key, with &pt=N to accept only payload type N"
                             : "an RTP feed is rtp://HOST:PORT, e.g. rtp://127.0.0.1:5004, with ?pt=N to accept only payload type N"
        guard let components = URLComponents(string: argument), let host = components.host, !host.isEmpty,
              let port = components.port, (1...65_535).contains(port) else {
            throw .cannotUse(role: "live feed", what: argument, reason: example)
        }
        var pinned: Int?
        var key: SRTPKey?
        for item in components.queryItems ?? [] {
            if secure, item.name == "key-file" {
                do {
                    key = try SRTPKey(file: item.value ?? "")
                } catch {
                    throw .cannotUse(role: "live feed", what: argument, reason: PeerArgument.reason(error))
                }
                continue
            }
            guard item.name == "pt" else {
                throw .cannotUse(role: "live feed", what: argument, reason: "'\(item.name)' is not an option of an \(secure ? "SRTP feed (pt, key-file)" : "RTP feed (only pt)")")
            }
            guard let value = item.value.flatMap({ Int($0) }), (96...127).contains(value) else {
                throw .cannotUse(role: "live feed", what: argument, reason: "pt is the dynamic payload type the Opus sender uses, 96 to 127 (WebRTC uses 111), not '\(item.value ?? "")'")
            }
            pinned = value
        }
        let address = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-:"))
        guard address.unicodeScalars.allSatisfy(allowed.contains) else {
            throw .cannotUse(role: "live feed", what: argument, reason: "'\(host)' is not a host name or address to listen on")
        }
        if secure, key == nil { throw .cannotUse(role: "live feed", what: argument, reason: example) }
        return .rtp(address: address, port: port, payloadType: pinned, key: key)
    }

    /// The engine's reason, without its leading "'X' cannot be used:".
    static func reason(_ error: EngineError) -> String {
        switch error {
        case .badEndpoint(_, let reason), .badSessionDescription(_, let reason): return reason
        case .badKey(let origin, let reason): return "its SRTP key file \(origin): \(reason)"
        default: return error.description
        }
    }
}
