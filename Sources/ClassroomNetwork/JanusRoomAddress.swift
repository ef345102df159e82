import ClassroomEngine
import Foundation

/// `janus://HOST[:PORT]/ROOM[?display=NAME&pin=PIN]`: a Janus AudioBridge room reached over
/// Janus's HTTP API (`http://HOST:PORT/janus`, port 8088 unless given).
public struct JanusRoomAddress: Sendable, Hashable, CustomStringConvertible {
    /// The server's host.
    public let host: String
    /// The HTTP API's port.
    public let port: Int
    /// The AudioBridge room number.
    public let room: UInt64
    /// The name the room's participant list shows.
    public let display: String
    /// The room's pin, if it has one.
    public let pin: String?

    /// Janus's HTTP port unless one is given.
    public static let defaultPort = 8088

    /// An address from its parts.
    public init(host: String, port: Int = JanusRoomAddress.defaultPort, room: UInt64, display: String, pin: String? = nil) {
        self.host = host; self.port = port; self.room = room; self.display = display; self.pin = pin
    }

    /// Parses `janus://HOST[:PORT]/ROOM[?display=NAME&pin=PIN]`.
    public init(uri: String, defaultDisplay: String = "kiosk") throws(EngineError) {
        let example = "a room is janus://HOST:PORT/ROOM, e.g. janus://127.0.0.1:8088/1234?display=kiosk-7"
        guard let components = URLComponents(string: uri), components.scheme?.lowercased() == "janus",
              let bracketed = components.host, !bracketed.isEmpty else {
            throw .badEndpoint(uri, reason: example)
        }
        // An IPv6 literal comes with its brackets ([::1]): the host is what is inside them.
        let host = bracketed.hasPrefix("[") && bracketed.hasSuffix("]") ? String(bracketed.dropFirst().dropLast()) : bracketed
        guard !host.isEmpty else { throw .badEndpoint(uri, reason: example) }
        let path = components.path.split(separator: "/")
        guard path.count == 1, let room = UInt64(path[0]) else {
            throw .badEndpoint(uri, reason: "the room is a number after the host (AudioBridge rooms are numbered); \(example)")
        }
        var display = defaultDisplay
        var pin: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "display":
                guard let value = item.value, !value.isEmpty, value.count <= 64 else { throw .badEndpoint(uri, reason: "display is a name of 1 to 64 characters") }
                display = value
            case "pin":
                pin = item.value ?? ""
            default:
                throw .badEndpoint(uri, reason: "'\(item.name)' is not an option of a room (display, pin)")
            }
        }
        let port = components.port ?? Self.defaultPort
        guard (1...65_535).contains(port) else { throw .badEndpoint(uri, reason: "the port is 1 to 65535") }
        self.init(host: host, port: port, room: room, display: display, pin: pin)
    }

    /// The HTTP API's URL.
    var apiURL: URL? { URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/janus") }

    public var description: String { "janus://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(room)" }
}
