import COpenSSL
import Foundation

/// A certificate's fingerprint as SDP carries it (`a=fingerprint:sha-256 AB:CD:…`, RFC 8122): the
/// hash of its DER encoding in upper-case hex pairs joined by colons. A DTLS peer proves who it is
/// by a certificate whose fingerprint the signalling delivered.
public enum CertificateFingerprint {
    /// The fingerprint of the first certificate in `pem` by the SDP hash name `algorithm`
    /// ("sha-256", "sha-1", "sha-384" …; wraps `PEM_read_bio_X509` and `X509_digest`); nil when
    /// `pem` holds no certificate or the hash is not one OpenSSL knows.
    public static func of(pem: String, algorithm: String) -> String? {
        let name = algorithm.lowercased().replacingOccurrences(of: "-", with: "")
        guard let digest = EVP_get_digestbyname(name) else { return nil }
        let bytes = Array(pem.utf8)
        let certificate: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let certificate else { return nil }
        defer { X509_free(certificate) }
        var hash = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, digest, &hash, &length) == 1 else { return nil }
        return hash.prefix(Int(length)).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// Whether two fingerprints in SDP's notation are the same (hex case and surrounding space aside).
    public static func same(_ one: String, _ other: String) -> Bool {
        one.trimmingCharacters(in: .whitespaces).uppercased() == other.trimmingCharacters(in: .whitespaces).uppercased()
    }
}
