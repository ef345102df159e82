import ClassroomEngine
import Foundation
import TLS

/// An SRTP master key and salt for AES_CM_128_HMAC_SHA1_80 (RFC 3711, RFC 4568): 16 bytes of key
/// and 14 of salt, written as base64 — what ffmpeg's `-srtp_out_params` and an SDP's `a=crypto`
/// `inline:` take. The key never appears in a description, a message or a log: only where it came from.
public struct SRTPKey: Sendable, Hashable, CustomStringConvertible {
    /// The one suite spoken here, as SDP names it.
    public static let suite = "AES_CM_128_HMAC_SHA1_80"
    /// Key and salt together.
    static let length = 30

    /// Key and salt.
    let material: [UInt8]
    /// Where it came from, for messages: a file's path or an SDP's.
    public let origin: String

    /// Reads a key file: base64 of 30 bytes, readable by its owner only.
    public init(file path: String) throws(EngineError) {
        let data: Data
        do { data = try OwnerOnlyFile.contents(atPath: path, maxBytes: 1023, followingLinks: false) } catch { throw .badKey(path, reason: error.reason) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badKey(path, reason: "it cannot be read, or is not a short text file of base64")
        }
        try self.init(base64: text.trimmingCharacters(in: .whitespacesAndNewlines), origin: path)
    }

    /// A key given as base64 (an SDP's `inline:`), from `origin`.
    public init(base64: String, origin: String) throws(EngineError) {
        guard let bytes = Data(base64Encoded: base64), bytes.count == SRTPKey.length else {
            throw .badKey(origin, reason: "it must hold \(SRTPKey.length) bytes (16 of key, 14 of salt) in base64, as ffmpeg's -srtp_out_params takes them")
        }
        material = [UInt8](bytes)
        self.origin = origin
    }

    /// The key and salt as base64, for an SDP's `a=crypto` line.
    var base64: String { Data(material).base64EncodedString() }

    /// The key and salt as hex, for srtpdec's caps (`srtp-key=(buffer)…`).
    var hex: String { material.map { String(format: "%02x", $0) }.joined() }

    /// What checks a packet's tag under this key (AES_CM_128_HMAC_SHA1_80: 16 bytes of key, then 14 of salt).
    var authenticator: SRTPAuthenticator? {
        SRTPAuthenticator(masterKey: Array(material.prefix(16)), masterSalt: Array(material.suffix(14)), tagLength: 10)
    }

    public var description: String { "\(SRTPKey.suite) key from \(origin)" }
}
