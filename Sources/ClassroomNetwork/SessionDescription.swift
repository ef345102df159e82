import ClassroomEngine
import Foundation

/// The audio stream an SDP file (RFC 4566) describes, checked before anything listens: the
/// port, the address and the payload formats, each named.
public struct SessionDescription: Sendable, Hashable, CustomStringConvertible {
    /// One payload format of the audio stream.
    public struct Format: Sendable, Hashable {
        /// The RTP payload type.
        public let payloadType: Int
        /// The encoding name in upper case (OPUS, PCMU, PCMA, L16 …).
        public let encoding: String
        /// The RTP clock rate.
        public let clockRate: Int
        /// The channel count (1 when the SDP does not say).
        public let channels: Int
    }

    /// The encodings this engine decodes from RTP.
    public static let decodable: Set<String> = ["OPUS", "PCMU", "PCMA", "L16"]

    /// The UDP port the stream arrives on.
    public let port: Int
    /// The connection address (`c=`): where the feed listens; an SDP without one is refused.
    public let address: String
    /// The payload formats, in the order the media line lists them.
    public let formats: [Format]
    /// Where it was read from.
    public let path: String
    /// The SRTP key of an `a=crypto` line (SDES, RFC 4568); nil for plain RTP.
    public let key: SRTPKey?
    /// Whether any section holds an `a=crypto` line, used or not: the file is then a secret.
    let holdsKey: Bool

    /// The static payload types of RFC 3551 that carry audio this engine decodes.
    static let staticFormats: [Int: Format] = [
        0: Format(payloadType: 0, encoding: "PCMU", clockRate: 8_000, channels: 1),
        8: Format(payloadType: 8, encoding: "PCMA", clockRate: 8_000, channels: 1),
        10: Format(payloadType: 10, encoding: "L16", clockRate: 44_100, channels: 2),
        11: Format(payloadType: 11, encoding: "L16", clockRate: 44_100, channels: 1),
    ]

    /// An SDP of one audio stream is a few hundred bytes; a larger file is not one.
    static let maxBytes = 64 * 1024

    /// Reads and checks the SDP at `path`.
    public static func load(path: String) throws(EngineError) -> SessionDescription {
        if let refusal = BoundedFile.refusal(path, maxBytes: maxBytes) { throw .badSessionDescription(path: path, reason: refusal) }
        guard let data = BoundedFile.read(path, maxBytes: maxBytes) else {
            throw .badSessionDescription(path: path, reason: "it cannot be read (\(String(cString: strerror(errno))))")
        }
        guard data.count <= maxBytes, let text = String(data: data, encoding: .utf8) else {
            throw .badSessionDescription(path: path, reason: "it is not SDP text (an SDP file is a few lines of UTF-8 starting with v=0)")
        }
        let description = try parse(text, path: path)
        if description.holdsKey {
            do { try OwnerOnlyFile.check(path, followingLinks: true) } catch {
                throw .badSessionDescription(path: path, reason: "it holds an SRTP key (a=crypto), and \(error.reason)")
            }
        }
        return description
    }

    /// Parses SDP text; only the first audio media section is used.
    public static func parse(_ text: String, path: String) throws(EngineError) -> SessionDescription {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.first == "v=0" else {
            throw .badSessionDescription(path: path, reason: "it is not SDP: an SDP file starts with the line v=0")
        }
        var sessionAddress: String?
        var mediaAddress: String?
        var media: (port: Int, types: [Int])?
        var rtpmaps: [Int: String] = [:]
        var crypto: String?
        var secure = false
        var holdsKey = false
        var otherMedia: [String] = []
        var inAudio = false
        for line in lines {
            guard line.count >= 2, line.dropFirst().first == "=" else {
                throw .badSessionDescription(path: path, reason: "the line '\(line.prefix(40))' is not of the form x=value")
            }
            let key = line.first
            let value = String(line.dropFirst(2))
            switch key {
            case "m":
                let fields = value.split(separator: " ")
                inAudio = false
                if fields.first == "audio", media == nil {
                    guard fields.count >= 4, let portText = fields[1].split(separator: "/").first, let port = Int(portText), (1...65_535).contains(port) else {
                        throw .badSessionDescription(path: path, reason: "the audio line 'm=\(value)' names no port and payload type")
                    }
                    guard fields[2].hasPrefix("RTP/") else {
                        throw .badSessionDescription(path: path, reason: "the audio is carried over \(fields[2]), not RTP")
                    }
                    media = (port, fields[3...].compactMap { Int($0) })
                    secure = fields[2].hasPrefix("RTP/SAVP")
                    inAudio = true
                } else if let kind = fields.first {
                    otherMedia.append(String(kind))
                }
            case "c":
                let address = value.split(separator: " ").last.flatMap { $0.split(separator: "/").first }.map(String.init)
                if media == nil { sessionAddress = address } else if inAudio { mediaAddress = address }
            case "a" where value.hasPrefix("crypto:"):
                holdsKey = true
                if inAudio, crypto == nil { crypto = String(value.dropFirst("crypto:".count)) }
            case "a" where inAudio && value.hasPrefix("rtpmap:"):
                let parts = value.dropFirst("rtpmap:".count).split(separator: " ", maxSplits: 1)
                if parts.count == 2, let type = Int(parts[0]) { rtpmaps[type] = String(parts[1]) }
            default:
                break
            }
        }
        if secure, crypto == nil {
            throw .badSessionDescription(path: path, reason: "its audio is SRTP (RTP/SAVP) but it gives no key: an a=crypto line with \(SRTPKey.suite) is needed")
        }
        guard let media else {
            let others = otherMedia.isEmpty ? "no media at all" : "only \(otherMedia.joined(separator: ", "))"
            throw .badSessionDescription(path: path, reason: "it describes no audio (\(others)); give the SDP of an audio stream")
        }
        var formats: [Format] = []
        for type in media.types {
            if let map = rtpmaps[type] {
                let parts = map.split(separator: "/")
                guard let rate = parts.count > 1 ? Int(parts[1]) : nil else { continue }
                formats.append(Format(payloadType: type, encoding: parts[0].uppercased(), clockRate: rate,
                                      channels: parts.count > 2 ? Int(parts[2]) ?? 1 : 1))
            } else if let known = staticFormats[type] {
                formats.append(known)
            }
        }
        guard let usable = formats.first(where: { decodable.contains($0.encoding) }) else {
            let named = formats.isEmpty ? "payload types \(media.types.map(String.init).joined(separator: ", ")) without a=rtpmap"
                                        : formats.map(\.encoding).joined(separator: ", ")
            throw .badSessionDescription(path: path, reason: "its audio is \(named); this player decodes \(decodable.sorted().joined(separator: ", "))")
        }
        guard let address = mediaAddress ?? sessionAddress, !address.isEmpty else {
            throw .badSessionDescription(path: path, reason: "it gives no connection address (a c= line, e.g. c=IN IP4 0.0.0.0): without one the stream's address is unknown and nothing would be received")
        }
        // The decodable format first: the one the feed is described by.
        let ordered = [usable] + formats.filter { $0 != usable }
        return SessionDescription(port: media.port, address: address, formats: ordered, path: path,
                                  key: try crypto.map { line throws(EngineError) in try SessionDescription.key(of: line, path: path) },
                                  holdsKey: holdsKey)
    }

    /// The key of `a=crypto:TAG SUITE inline:BASE64[|LIFETIME][|MKI]` (RFC 4568 §9.1).
    private static func key(of line: String, path: String) throws(EngineError) -> SRTPKey {
        let fields = line.split(separator: " ")
        guard fields.count >= 3, fields[2].hasPrefix("inline:") else {
            throw .badSessionDescription(path: path, reason: "its a=crypto line is not 'a=crypto:TAG SUITE inline:KEY'")
        }
        guard fields[1] == Substring(SRTPKey.suite) else {
            throw .badSessionDescription(path: path, reason: "its a=crypto suite is \(fields[1]); this player speaks \(SRTPKey.suite)")
        }
        let inline = fields[2].dropFirst("inline:".count).split(separator: "|").first.map(String.init) ?? ""
        return try SRTPKey(base64: inline, origin: "\(path) (a=crypto)")
    }

    public var description: String {
        let format = formats.first.map { "\($0.encoding)/\($0.clockRate) payload type \($0.payloadType)" } ?? "audio"
        return "\(path) (\(format) on port \(port))"
    }
}
