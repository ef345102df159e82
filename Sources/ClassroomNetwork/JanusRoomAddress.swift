import ClassroomEngine
import Foundation
import TLS

/// A Janus room reached over Janus's HTTP API, in one of two forms:
/// - `https://HOST[:PORT]/PATH?room=ID[&ca=FILE&…]` (or `http://` on a trusted LAN) joins as a WebRTC
///   participant (DTLS-SRTP; `PATH` is the API's, usually `/janus`; the server's certificate is
///   verified against the system's CAs or the CA in FILE): an AudioBridge room, whose server mixes
///   (`mode=mix`, the default), or a VideoRoom room, whose server forwards every classmate's voice
///   for this kiosk to mix (`mode=sfu`);
/// - `janus://HOST[:PORT]/ROOM[?…]` joins as a plain-RTP participant (unencrypted, for labs),
///   the API at `http://HOST:PORT/janus`.
/// Port 8088 (8089 for https) unless given; the options are `display=NAME&pin-file=F&token-file=F&apisecret-file=F&prebuffer=N`.
/// Credentials come from files only their owner can read (`JanusSecret`); a `pin=` given directly
/// still works but is on the command line (`pinOnCommandLine`).
public struct JanusRoomAddress: Sendable, Hashable, CustomStringConvertible {
    /// How the kiosk's audio reaches the room.
    public enum Media: Sendable, Hashable {
        /// A WebRTC PeerConnection (ICE, DTLS-SRTP): the room's audio is encrypted.
        case webRTC
        /// Plain RTP to and from the AudioBridge (its `rtp` join): nothing is encrypted.
        case plainRTP
    }

    /// Who mixes the class.
    public enum Mode: String, Sendable, Hashable {
        /// The server: a Janus AudioBridge room sends one mix of everyone else.
        case mix
        /// This kiosk: a Janus VideoRoom room (an SFU) forwards each classmate's voice unchanged.
        case sfu
    }

    /// How the audio travels.
    public let media: Media
    /// Who mixes the class (`mix` for every `janus://` room).
    public let mode: Mode
    /// The HTTP API's path (`/janus` for `janus://`).
    public let apiPath: String
    /// HTTPS: whom the server's certificate must be signed by; nil for plain HTTP.
    public let trust: TLSSession.Trust?
    /// The server's host.
    public let host: String
    /// The HTTP API's port.
    public let port: Int
    /// The room number (AudioBridge rooms and VideoRoom rooms are numbered apart).
    public let room: UInt64
    /// The name the room's participant list shows.
    public let display: String
    /// The room's pin, if it has one (sent in the join).
    public let pin: JanusSecret?
    /// Janus's token_auth token (sent as "token" in every request).
    public let token: JanusSecret?
    /// Janus's API secret (sent as "apisecret" in every request).
    public let apiSecret: JanusSecret?
    /// How many 20 ms packets the AudioBridge buffers from this kiosk before mixing it (the join's `prebuffer`).
    public let prebuffer: Int

    /// Janus's HTTP port unless one is given.
    public static let defaultPort = 8088
    /// Janus's HTTPS port unless one is given.
    public static let defaultSecurePort = 8089
    /// The prebuffer unless one is given: 4 packets (80 ms), the fewest with no gap in any loopback
    /// run (3 had gaps in some, 1 and 2 in most, from a file microphone and from a sound-server
    /// source alike; the AudioBridge's own default is 6: README, docs/WEBRTC-NOTES.md).
    public static let defaultPrebuffer = 4
    /// The prebuffers `?prebuffer=` takes: up to a second. 0 is not one: Janus 1.1.2 takes it, then never mixes the kiosk in (measured on loopback).
    public static let prebufferRange = 1...50

    /// An address from its parts.
    public init(media: Media = .plainRTP, mode: Mode = .mix, host: String, port: Int = JanusRoomAddress.defaultPort, apiPath: String = "/janus", trust: TLSSession.Trust? = nil,
                room: UInt64, display: String, pin: JanusSecret? = nil, token: JanusSecret? = nil, apiSecret: JanusSecret? = nil,
                prebuffer: Int = JanusRoomAddress.defaultPrebuffer) {
        self.media = media; self.mode = mode; self.apiPath = apiPath; self.trust = trust
        self.host = host; self.port = port; self.room = room; self.display = display
        self.pin = pin; self.token = token; self.apiSecret = apiSecret; self.prebuffer = prebuffer
    }

    /// Whether the pin was given as `?pin=` (visible in ps and shell history) rather than in a file.
    public var pinOnCommandLine: Bool { pin?.origin == JanusRoomAddress.uriOrigin }
    /// The origin of a pin given directly.
    static let uriOrigin = "the room URI"

    /// Parses the URI, reading the credential files it names.
    public init(uri: String, defaultDisplay: String = "kiosk") throws(EngineError) {
        // A pin given directly is left out of every message.
        let shown = Self.redacted(uri)
        let example = "a room is http://HOST:PORT/janus?room=ROOM (WebRTC) or janus://HOST:PORT/ROOM (plain RTP), e.g. http://10.0.0.5:8088/janus?room=1234&display=kiosk-7"
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(), ["janus", "http", "https"].contains(scheme),
              let bracketed = components.host, !bracketed.isEmpty else {
            throw .badEndpoint(shown, reason: example)
        }
        // An IPv6 literal comes with its brackets ([::1]): the host is what is inside them.
        let host = bracketed.hasPrefix("[") && bracketed.hasSuffix("]") ? String(bracketed.dropFirst().dropLast()) : bracketed
        guard !host.isEmpty else { throw .badEndpoint(shown, reason: example) }
        let media: Media = scheme == "janus" ? .plainRTP : .webRTC
        var room: UInt64?
        if media == .plainRTP {
            let path = components.path.split(separator: "/")
            guard path.count == 1, let number = UInt64(path[0]) else {
                throw .badEndpoint(shown, reason: "the room is a number after the host (Janus rooms are numbered); \(example)")
            }
            room = number
        } else {
            guard components.path.count > 1 else { throw .badEndpoint(shown, reason: "the URI names Janus's API path, usually /janus; \(example)") }
            guard let value = components.queryItems?.first(where: { $0.name == "room" })?.value else {
                throw .badEndpoint(shown, reason: "room=ROOM is missing (Janus rooms are numbered); \(example)")
            }
            guard let number = UInt64(value) else { throw .badEndpoint(shown, reason: "the room is a number, not '\(value)'") }
            room = number
        }
        var display = defaultDisplay
        var pin: JanusSecret?, token: JanusSecret?, apiSecret: JanusSecret?
        var prebuffer: Int?
        var mode = Mode.mix
        var caFile: String?
        func file(_ item: URLQueryItem) throws(EngineError) -> String {
            guard let path = item.value, !path.isEmpty else { throw .badEndpoint(shown, reason: "\(item.name) names a file, e.g. \(item.name)=/etc/classroom/room.\(item.name.prefix { $0 != "-" })") }
            return path
        }
        for item in components.queryItems ?? [] {
            switch item.name {
            case "room" where media == .webRTC:
                continue
            case "ca" where scheme == "https":
                let path = try file(item)
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw .badEndpoint(shown, reason: "the CA file \(path) cannot be read; ca= names a PEM file with the CA that signed the server's certificate")
                }
                if let refusal = BoundedFile.refusal(path, maxBytes: 1 << 20) {
                    throw .badEndpoint(shown, reason: "the CA file \(path) is refused: \(refusal); ca= names a PEM file with the CA that signed the server's certificate")
                }
                caFile = path
            case "display":
                guard let value = item.value, !value.isEmpty, value.count <= 64 else { throw .badEndpoint(shown, reason: "display is a name of 1 to 64 characters") }
                display = value
            case "pin":
                pin = JanusSecret(.pin, value: item.value ?? "", origin: Self.uriOrigin)
            case "pin-file":
                pin = try JanusSecret(.pin, file: file(item))
            case "token-file":
                token = try JanusSecret(.token, file: file(item))
            case "apisecret-file":
                apiSecret = try JanusSecret(.apiSecret, file: file(item))
            case "prebuffer":
                guard let value = item.value.flatMap({ Int($0) }), Self.prebufferRange.contains(value) else {
                    throw .badEndpoint(shown, reason: "prebuffer is a number of 20 ms packets from \(Self.prebufferRange.lowerBound) to \(Self.prebufferRange.upperBound) (\(Self.defaultPrebuffer) unless given), not '\(item.value ?? "")'")
                }
                prebuffer = value
            case "mode" where media == .webRTC:
                guard let value = item.value.flatMap(Mode.init(rawValue:)) else {
                    throw .badEndpoint(shown, reason: "mode is mix (an AudioBridge room: the server mixes) or sfu (a VideoRoom room: this kiosk mixes each classmate), not '\(item.value ?? "")'")
                }
                mode = value
            case "mode":
                throw .badEndpoint(shown, reason: "a janus:// room is an AudioBridge room joined over plain RTP; mode=sfu (a VideoRoom room) is joined over WebRTC: http(s)://HOST:PORT/janus?room=ROOM&mode=sfu")
            case "token", "apisecret":
                throw .badEndpoint(shown, reason: "a \(item.name) is not taken on the command line, where ps and the shell history show it; put it in a file only you can read (chmod 600) and give \(item.name)-file=FILE")
            default:
                throw .badEndpoint(shown, reason: "'\(item.name)' is not an option of a room (\(media == .webRTC ? "room, mode, " : "")\(scheme == "https" ? "ca, " : "")display, pin-file, token-file, apisecret-file, prebuffer)")
            }
        }
        // The prebuffer is the AudioBridge's, which holds packets ahead of its mix; a VideoRoom forwards them as they come.
        if mode == .sfu, prebuffer != nil {
            throw .badEndpoint(shown, reason: "prebuffer is an AudioBridge setting (mode=mix); a VideoRoom room (mode=sfu) forwards each packet as it comes, and this kiosk's jitter buffers hold them")
        }
        let port = components.port ?? (scheme == "https" ? Self.defaultSecurePort : Self.defaultPort)
        guard (1...65_535).contains(port) else { throw .badEndpoint(shown, reason: "the port is 1 to 65535") }
        self.init(media: media, mode: mode, host: host, port: port, apiPath: media == .plainRTP ? "/janus" : components.path,
                  trust: scheme == "https" ? TLSSession.Trust(caFile: caFile) : nil, room: room ?? 0, display: display,
                  pin: pin, token: token, apiSecret: apiSecret, prebuffer: prebuffer ?? Self.defaultPrebuffer)
    }

    /// `uri` with the value of a `pin=` (or a refused `token=`, `apisecret=`) given directly left out, for messages.
    public static func redacted(_ uri: String) -> String {
        let secret: Set = ["pin", "token", "apisecret"]
        guard var components = URLComponents(string: uri), let items = components.queryItems, items.contains(where: { secret.contains($0.name) }) else { return uri }
        components.queryItems = items.map { secret.contains($0.name) ? URLQueryItem(name: $0.name, value: "…") : $0 }
        return components.string ?? "the room URI"
    }

    /// The HTTP API's URL.
    var apiURL: URL? { URL(string: "\(trust == nil ? "http" : "https")://\(hostInURL):\(port)\(apiPath)") }

    var hostInURL: String { host.contains(":") ? "[\(host)]" : host }

    public var description: String {
        switch media {
        case .plainRTP: return "janus://\(hostInURL):\(port)/\(room)"
        case .webRTC: return "\(trust == nil ? "http" : "https")://\(hostInURL):\(port)\(apiPath)?room=\(room)\(mode == .sfu ? "&mode=sfu" : "")"
        }
    }
}
