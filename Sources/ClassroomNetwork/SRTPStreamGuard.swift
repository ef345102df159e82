import GStreamer
import Synchronization
import TLS

/// Lets an SSRC reach srtpdec only once one of its packets authenticates. srtpdec 1.22 makes a
/// libsrtp stream for every SSRC it is given a key for, before the packet authenticates, and
/// never frees it, not even on `remove-key` (WORKAROUNDS §40); our srtp:// feeds and webrtcbin's
/// DTLS-SRTP both give the key for any SSRC, so junk with ever new SSRCs grew a kiosk by hundreds
/// of MB. Here a packet of an SSRC srtpdec has not met is checked first (`SRTPAuthenticator`: its
/// tag under the session's key) and dropped when it fails, counted in `refused` (an srtp:// feed
/// counts it with srtpdec's own failures). The SSRCs let through are capped too: past
/// `admittedLimit` (a sender restarted that often in one class) srtpdec's streams are all cleared
/// (`clear-keys`, which does free them) and re-made as their packets come.
final class SRTPStreamGuard: Sendable {
    /// SSRCs srtpdec holds streams for at most.
    static let admittedLimit = 32

    /// The session's key check; `key` is asked until it has one (webrtcbin's comes with the DTLS handshake).
    private let authenticator = Mutex<SRTPAuthenticator?>(nil)
    private let key: @Sendable () -> SRTPAuthenticator?
    private let onFirstRefusal: (@Sendable () -> Void)?
    private let admitted = Mutex<Set<UInt32>>([])
    private let probe = Mutex<PadProbe?>(nil)
    /// Packets dropped here: of an SSRC srtpdec has not met, failing the check under the key.
    let refused = Atomic<Int>(0)
    /// Held here: a wrapper made for a signal (webrtcbin's deep-element-added) lives no longer than the call.
    private let decrypt: Element

    /// Guards `decrypt` (an srtpdec) with the key `key` gives; keep the object as long as the element
    /// runs. `onFirstRefusal` hears the first packet refused, on the streaming thread.
    init(_ decrypt: Element, key: @escaping @Sendable () -> SRTPAuthenticator?, onFirstRefusal: (@Sendable () -> Void)? = nil) throws(GStreamerError) {
        self.key = key
        self.onFirstRefusal = onFirstRefusal
        self.decrypt = decrypt
        // Streaming thread, before srtpdec's chain function takes its lock: clear-keys is safe here.
        let added = try decrypt.staticPad("rtp_sink").addProbe(.buffer) { [weak self] info in
            guard let self, let buffer = info.buffer else { return .ok }
            return admit(buffer.bytes()) ? .ok : .drop
        }
        probe.withLock { $0 = added }
    }

    private func admit(_ packet: [UInt8]) -> Bool {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return true }
        // RTCP multiplexed on the port (RFC 5761: payload types 64-95) is keyed by its sender's SSRC.
        let isRTCP = (64..<96).contains(Int(packet[1] & 0x7f))
        let offset = isRTCP ? 4 : 8
        let ssrc = UInt32(packet[offset]) << 24 | UInt32(packet[offset + 1]) << 16 | UInt32(packet[offset + 2]) << 8 | UInt32(packet[offset + 3])
        if admitted.withLock({ $0.contains(ssrc) }) { return true }
        guard let check = authenticator.withLock({ current -> SRTPAuthenticator? in
            if current == nil { current = key() }
            return current
        }) else {
            // No key yet: srtpdec has none either and drops the packet without making a stream.
            return true
        }
        guard isRTCP ? check.authenticates(rtcp: packet) : check.authenticates(rtp: packet) else {
            if refused.add(1, ordering: .relaxed).newValue == 1 { onFirstRefusal?() }
            return false
        }
        let full = admitted.withLock { set -> Bool in
            if set.count >= Self.admittedLimit {
                set = [ssrc]
                return true
            }
            set.insert(ssrc)
            return false
        }
        if full { decrypt.emit("clear-keys") }
        return true
    }
}
