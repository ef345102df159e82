import ClassroomEngine
import Foundation

/// Where an RTP uplink is sent: a numeric address, a port, the codec and its payload type, and
/// optionally the local port it is sent from (servers such as Janus accept only packets from
/// the address they were told).
public struct RTPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The codecs an uplink can be encoded with.
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// Opus, 48 kHz (RFC 7587): what WebRTC stacks and conferencing servers expect.
        case opus
        /// G.711 µ-law, 8 kHz (static payload type 0).
        case pcmu
        /// G.711 A-law, 8 kHz (static payload type 8).
        case pcma

        /// The payload type used unless one is given: 111 for Opus (as WebRTC stacks use), the static ones for G.711.
        public var defaultPayloadType: Int {
            switch self {
            case .opus: return 111
            case .pcmu: return 0
            case .pcma: return 8
            }
        }

        /// The RTP clock rate.
        public var clockRate: Int { self == .opus ? 48_000 : 8_000 }

        /// The `a=rtpmap` encoding, as RFC 3551 and RFC 7587 write it.
        var rtpmap: String {
            switch self {
            case .opus: return "opus/48000/2"
            case .pcmu: return "PCMU/8000"
            case .pcma: return "PCMA/8000"
            }
        }
    }

    /// The destination's numeric address (IPv4 or IPv6).
    public let address: String
    /// The destination's UDP port.
    public let port: Int
    /// The codec.
    public let codec: Codec
    /// The RTP payload type.
    public let payloadType: Int
    /// The local port packets are sent from; nil for any.
    public let localPort: Int?
    /// The local address packets are sent from, with `localPort`.
    public let localAddress: String?
    /// The SRTP key the packets are protected with (srtp://); nil for plain RTP.
    public let key: SRTPKey?
    /// The audio each packet carries, in milliseconds (`?ptime=`): 10 halves the packetisation delay, 20 is what WebRTC sends.
    public let packetTime: Int
    /// Whether Opus packets carry in-band FEC (`?fec=`): a lost packet is rebuilt from the next one. Always false for G.711.
    public let forwardErrorCorrection: Bool

    /// The packet durations every codec here sends cleanly (opusenc's frame sizes; whole G.711 packets).
    public static let packetTimes = [10, 20, 40, 60]
    /// The loss opusenc is told to expect with FEC on: enough for it to spend bits on the FEC copy.
    public static let expectedLossPercentage = 10

    /// An endpoint; throws when a value is out of range. `host` may be a name: it is resolved now.
    /// `forwardErrorCorrection` nil means on for Opus, off for G.711.
    public init(host: String, port: Int, codec: Codec = .opus, payloadType: Int? = nil,
                localAddress: String? = nil, localPort: Int? = nil, key: SRTPKey? = nil,
                packetTime: Int = 20, forwardErrorCorrection: Bool? = nil) throws(EngineError) {
        guard (1...65_535).contains(port) else { throw .badEndpoint("rtp://\(host):\(port)", reason: "the port is 1 to 65535") }
        guard RTPEndpoint.packetTimes.contains(packetTime) else {
            throw .badEndpoint("rtp://\(host):\(port)", reason: RTPEndpoint.packetTimeReason("\(packetTime)"))
        }
        if codec != .opus, forwardErrorCorrection == true {
            throw .badEndpoint("rtp://\(host):\(port)", reason: "fec=on is Opus's in-band FEC; G.711 has none: drop fec=on or use codec=opus")
        }
        let type = payloadType ?? codec.defaultPayloadType
        guard (0...127).contains(type) else { throw .badEndpoint("rtp://\(host):\(port)", reason: "a payload type is 0 to 127, not \(type)") }
        if codec == .opus, !(96...127).contains(type) {
            throw .badEndpoint("rtp://\(host):\(port)", reason: "Opus has no static payload type: use a dynamic one, 96 to 127 (WebRTC uses 111)")
        }
        if let localPort, !(1...65_535).contains(localPort) {
            throw .badEndpoint("rtp://\(host):\(port)", reason: "the local port is 1 to 65535")
        }
        self.address = try RTPEndpoint.resolve(host)
        self.port = port
        self.codec = codec
        self.payloadType = type
        self.localAddress = localAddress
        self.localPort = localPort
        self.key = key
        self.packetTime = packetTime
        self.forwardErrorCorrection = forwardErrorCorrection ?? (codec == .opus)
    }

    /// Parses `rtp://HOST:PORT[?pt=N][&codec=opus|pcmu|pcma][&ptime=10|20|40|60][&fec=on|off]` or `srtp://HOST:PORT?key-file=FILE[&…]`
    /// (IPv6 hosts in brackets); the key comes from the file, never from the URI itself.
    public init(uri: String) throws(EngineError) {
        let scheme = URLComponents(string: uri)?.scheme?.lowercased()
        guard let components = URLComponents(string: uri), scheme == "rtp" || scheme == "srtp",
              let host = components.host, !host.isEmpty, let port = components.port else {
            throw .badEndpoint(uri, reason: "an RTP uplink is rtp://HOST:PORT, e.g. rtp://127.0.0.1:5004, with ?pt=N and ?codec=pcmu|pcma if needed;"
                               + " an SRTP one is srtp://HOST:PORT?key-file=FILE")
        }
        var codec = Codec.opus
        var payloadType: Int?
        var key: SRTPKey?
        var packetTime = 20
        var fec: Bool?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "codec":
                guard let value = item.value.flatMap({ Codec(rawValue: $0.lowercased()) }) else {
                    throw .badEndpoint(uri, reason: "codec is one of \(Codec.allCases.map(\.rawValue).joined(separator: ", ")), not '\(item.value ?? "")'")
                }
                codec = value
            case "pt":
                guard let value = item.value.flatMap({ Int($0) }) else { throw .badEndpoint(uri, reason: "pt is a number, not '\(item.value ?? "")'") }
                payloadType = value
            case "ptime":
                guard let value = item.value.flatMap({ Int($0) }) else { throw .badEndpoint(uri, reason: RTPEndpoint.packetTimeReason(item.value ?? "")) }
                packetTime = value
            case "fec":
                switch item.value?.lowercased() {
                case "on": fec = true
                case "off": fec = false
                default: throw .badEndpoint(uri, reason: "fec is on or off, not '\(item.value ?? "")'")
                }
            case "key-file" where scheme == "srtp":
                guard let path = item.value, !path.isEmpty else { throw .badEndpoint(uri, reason: "key-file names the file that holds the SRTP key") }
                key = try SRTPKey(file: path)
            default:
                throw .badEndpoint(uri, reason: "'\(item.name)' is not an option of an \(scheme == "srtp" ? "SRTP uplink (pt, codec, ptime, fec, key-file)" : "RTP uplink (pt, codec, ptime, fec)")")
            }
        }
        if scheme == "srtp", key == nil {
            throw .badEndpoint(uri, reason: "an SRTP uplink needs its key: srtp://HOST:PORT?key-file=FILE (base64 of 30 bytes, readable by its owner only)")
        }
        try self.init(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port, codec: codec, payloadType: payloadType, key: key,
                      packetTime: packetTime, forwardErrorCorrection: fec)
    }

    /// The same endpoint sent from `localAddress:localPort`.
    public func sent(from localAddress: String, port localPort: Int) throws(EngineError) -> RTPEndpoint {
        try RTPEndpoint(host: address, port: port, codec: codec, payloadType: payloadType, localAddress: localAddress, localPort: localPort, key: key,
                         packetTime: packetTime, forwardErrorCorrection: forwardErrorCorrection)
    }

    /// Whether the address is IPv6.
    public var isIPv6: Bool { address.contains(":") }

    /// The SDP (RFC 4566) a receiver needs to play this uplink: `sdpdemux`, ffmpeg and VLC read it.
    /// Without `revealingKey` an SRTP uplink's `a=crypto` line is left out: that SDP can be shown
    /// (an event, a log) and names the stream, but only the key file or the owner-only SDP file plays it.
    public func sessionDescription(name: String = "classroom-audio uplink", revealingKey: Bool = true) -> String {
        let family = isIPv6 ? "IP6" : "IP4"
        var lines = [
            "v=0",
            "o=- \(RTPEndpoint.sessionID) 1 IN \(family) \(address)",
            "s=\(name)",
            "c=IN \(family) \(address)",
            "t=0 0",
            "m=audio \(port) \(key == nil ? "RTP/AVP" : "RTP/SAVP") \(payloadType)",
            "a=rtpmap:\(payloadType) \(codec.rtpmap)",
        ]
        // SDES (RFC 4568): whoever reads this SDP holds the key, so it is written for its owner only.
        if let key, revealingKey { lines.append("a=crypto:1 \(SRTPKey.suite) inline:\(key.base64)") }
        // Each SRTP packet carries the sender's wall clock (RTPFreshness).
        if key != nil { lines.append("a=extmap:\(RTPFreshness.extensionID) \(RTPFreshness.uri)") }
        // The microphone is mono; RFC 7587 still names two channels in rtpmap.
        if codec == .opus { lines.append("a=fmtp:\(payloadType) sprop-stereo=0;stereo=0" + (forwardErrorCorrection ? ";useinbandfec=1" : "")) }
        // Every packet is ptime long: the sender never sends longer ones.
        lines += ["a=ptime:\(packetTime)", "a=maxptime:\(packetTime)", "a=sendonly"]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    public var description: String {
        let host = isIPv6 ? "[\(address)]" : address
        var text = "\(key == nil ? "rtp" : "srtp")://\(host):\(port) (\(codec.rawValue), payload type \(payloadType), \(packetTime) ms"
        if forwardErrorCorrection { text += ", FEC" }
        if let localPort { text += ", from port \(localPort)" }
        return text + ")"
    }

    private static func packetTimeReason(_ given: String) -> String {
        "ptime is one of \(packetTimes.map(String.init).joined(separator: ", ")) (milliseconds of audio per packet), not '\(given)'"
    }

    /// One id per process, as RFC 4566 allows for `o=`.
    private static let sessionID = UInt64(Date().timeIntervalSince1970)

    /// A numeric address for `host`: itself when it already is one, else the first the resolver gives.
    static func resolve(_ host: String) throws(EngineError) -> String {
        if isNumeric(host) { return host }
        let addresses = Host(name: host).addresses
        guard let address = addresses.first(where: { !$0.contains(":") }) ?? addresses.first else {
            throw .badEndpoint(host, reason: "the host name '\(host)' does not resolve; check the name or give an address")
        }
        return address
    }

    private static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
