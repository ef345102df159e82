import ClassroomEngine
import Foundation
import GStreamer
import Synchronization
import TLS

/// Holds a PeerConnection's media until the DTLS peer proves to be the one the signalling named.
/// webrtcbin 1.22 accepts any certificate in the DTLS handshake and never compares it with the
/// answer's `a=fingerprint`, so whoever sits on the media path could be the room. Here dtlsdec's
/// peer certificate (its `peer-pem`, set inside the handshake before any key is exported) is
/// hashed and compared with the fingerprint of the answer that came over verified HTTPS; until it
/// matches, nothing received is played and nothing is sent, and a mismatch fails the connection.
final class DTLSFingerprintCheck: Sendable {
    /// Where the check stands.
    enum Verdict: Equatable {
        case pending, matched
        /// Refused, and why.
        case mismatched(String)
    }

    private let expected = Mutex<(algorithm: String, value: String)?>(nil)
    private let verdict = Mutex<Verdict>(.pending)
    private let onMismatch: @Sendable (String) -> Void

    /// `onMismatch` gets why, once, off the streaming thread.
    init(onMismatch: @escaping @Sendable (String) -> Void) { self.onMismatch = onMismatch }

    /// Takes the fingerprint the server's description (`sdp`: the answer to our offer, or its own
    /// offer) names; throws when it names none (nothing to check against).
    func expect(remote sdp: String) throws(EngineError) {
        guard let named = DTLSFingerprintCheck.fingerprint(in: sdp) else {
            throw .badEndpoint("the room's description", reason: "it carries no a=fingerprint, so the DTLS peer cannot be verified; the connection is refused")
        }
        expected.withLock { $0 = named }
    }

    /// Why the peer was refused; nil while it is not.
    var refused: String? {
        if case .mismatched(let why) = verdict.withLock({ $0 }) { return why }
        return nil
    }

    /// Checks each certificate `dtlsdec` receives (its `peer-pem` notify, on the handshake's thread).
    func watch(_ dtlsdec: Element) -> SignalHandler {
        dtlsdec.onNotify("peer-pem") { [weak self, weak dtlsdec] in
            guard let self, let dtlsdec else { return }
            judge(pem: (try? dtlsdec.string("peer-pem")) ?? nil)
        }
    }

    /// Drops the buffers through `pad` until the peer is verified; keep the probe.
    func hold(_ pad: Pad) -> PadProbe? {
        pad.addProbe(.buffer) { [weak self] _ in self?.verdict.withLock { $0 } == .matched ? .ok : .drop }
    }

    private func judge(pem: String?) {
        let why: String?
        if let expected = expected.withLock({ $0 }) {
            if let pem, let actual = CertificateFingerprint.of(pem: pem, algorithm: expected.algorithm) {
                why = CertificateFingerprint.same(actual, expected.value) ? nil
                    : "the DTLS certificate of the room's media (\(expected.algorithm) \(actual)) is not the one Janus's answer named (\(expected.value)): someone on the media path answered; the connection is dropped"
            } else {
                why = "the DTLS peer sent no certificate that can be hashed with \(expected.algorithm); the connection is dropped"
            }
        } else {
            why = "the DTLS handshake began before the room's answer named a fingerprint; the connection is dropped"
        }
        // Once mismatched, always: a later certificate neither clears it nor says it again.
        let firstRefusal = verdict.withLock { verdict -> Bool in
            if case .mismatched = verdict { return false }
            verdict = why.map { .mismatched($0) } ?? .matched
            return why != nil
        }
        guard firstRefusal, let why else { return }
        // Off the handshake's thread: the connection is stopped from there.
        let onMismatch = self.onMismatch
        Thread.detachNewThread { onMismatch(why) }
    }

    /// The hash name and value of an SDP's first `a=fingerprint:` line (session or media level).
    static func fingerprint(in sdp: String) -> (algorithm: String, value: String)? {
        for line in sdp.split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("a=fingerprint:") else { continue }
            let fields = text.dropFirst("a=fingerprint:".count).split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2 else { continue }
            return (String(fields[0]), String(fields[1]))
        }
        return nil
    }
}
