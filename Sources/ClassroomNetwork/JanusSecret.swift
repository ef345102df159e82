import ClassroomEngine
import Foundation

/// A credential for a Janus room — a token, an API secret or a room pin — read from a file that
/// only its owner can read, so it is never on the command line (ps, shell history, a unit file).
/// Its value never appears in a description, a message or a log: only what it is and where it came from.
public struct JanusSecret: Sendable, Hashable, CustomStringConvertible {
    /// Which credential it is, as messages name it.
    public enum Kind: String, Sendable, Hashable, CustomStringConvertible {
        case token = "token"
        case apiSecret = "API secret"
        case pin = "pin"

        public var description: String { rawValue }
    }

    /// Which credential.
    public let kind: Kind
    /// Where it came from: the file's path, or "the room URI" for a `?pin=` given directly.
    public let origin: String
    /// The secret itself; sent to Janus, shown nowhere.
    let value: String

    /// A file holding a secret is small: one line.
    static let maxBytes = 4096

    /// Reads `path`: a regular file readable by its owner only, whose content (less one trailing
    /// newline) is the secret.
    public init(_ kind: Kind, file path: String) throws(EngineError) {
        let data: Data
        do {
            data = try OwnerOnlyFile.contents(atPath: path, maxBytes: JanusSecret.maxBytes, followingLinks: true)
        } catch {
            throw .badEndpoint(path, reason: "the \(kind) file \(path): \(error.reason)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .badEndpoint(path, reason: "the \(kind) file \(path) is not UTF-8 text") }
        var value = Substring(text)
        if value.hasSuffix("\r\n") { value = value.dropLast(2) } else if value.hasSuffix("\n") { value = value.dropLast() }
        guard !value.isEmpty else { throw .badEndpoint(path, reason: "the \(kind) file \(path) is empty") }
        guard !value.contains(where: \.isNewline) else {
            throw .badEndpoint(path, reason: "the \(kind) file \(path) holds more than one line; it holds the \(kind) alone")
        }
        self.init(kind, value: String(value), origin: path)
    }

    /// A secret given as it is (`?pin=` on the command line, or a test's).
    public init(_ kind: Kind, value: String, origin: String) {
        self.kind = kind; self.value = value; self.origin = origin
    }

    public var description: String { "the \(kind) from \(origin)" }
}

/// `dump` and debuggers show what the secret is and where it came from, never its value.
extension JanusSecret: CustomReflectable {
    public var customMirror: Mirror { Mirror(self, children: ["kind": kind, "origin": origin]) }
}
