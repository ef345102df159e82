import Foundation
import GStreamer

/// Whether a new SRTP stream is live or replayed: classroom-player stamps every SRTP packet it
/// sends with its wall clock (RFC 6051's 64-bit NTP header extension, which SRTP authenticates),
/// and a receiver refuses a new stream whose stamp is more than `tolerance` from its own clock.
/// An SDES key stays the same from class to class, so without this a stream recorded in an
/// earlier class and sent again later would authenticate and play. A sender that stamps nothing
/// (ffmpeg, other RTP tools) is played as before: the stamp cannot be added to a recording of it.
public enum RTPFreshness {
    /// The one-byte header extension's ID, for the stamp (`a=extmap:1` in the SDP the uplink writes).
    public static let extensionID = 1
    /// What the SDP's `a=extmap` names it.
    public static let uri = "urn:ietf:params:rtp-hdrext:ntp-64"
    /// How far a sender's clock may be from ours: kiosks that keep time (NTP) are within a second.
    public static let tolerance: TimeInterval = 60

    /// The Unix time (seconds) in `packet`'s NTP-64 stamp (one-byte header extension `id`, 8
    /// bytes); nil when the packet carries none, or an empty one (a sender without a clock to write).
    public static func senderTime(in packet: [UInt8], id: Int = extensionID) -> TimeInterval? {
        guard let stamp = stampRange(in: packet, id: id) else { return nil }
        let ntp = packet[stamp].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard ntp != 0 else { return nil }
        return Double(ntp >> 32) - Double(Pad.ntpEpochOffset) + Double(ntp & 0xffff_ffff) / 4_294_967_296
    }

    /// Where in `packet` the 8 bytes of its NTP-64 stamp (one-byte header extension `id`) lie; nil
    /// when it has none, or its extension's lengths run past the packet.
    public static func stampRange(in packet: [UInt8], id: Int = extensionID) -> Range<Int>? {
        guard packet.count >= 12, packet[0] & 0x10 != 0 else { return nil }
        let start = 12 + 4 * Int(packet[0] & 0x0f)
        guard packet.count >= start + 4, packet[start] == 0xbe, packet[start + 1] == 0xde else { return nil }
        let end = start + 4 + 4 * (Int(packet[start + 2]) << 8 | Int(packet[start + 3]))
        guard packet.count >= end else { return nil }
        var index = start + 4
        while index < end {
            let element = packet[index]
            if element == 0 { index += 1; continue }          // padding
            let elementID = Int(element >> 4), length = Int(element & 0x0f) + 1
            if elementID == 15 { return nil }                  // reserved: the rest is not to be read
            guard index + 1 + length <= end else { return nil }
            if elementID == id, length == 8 { return (index + 1)..<(index + 9) }
            index += 1 + length
        }
        return nil
    }

    /// Why a new stream whose first authenticated packet is `packet` is refused on `feed`, or nil
    /// when it carries no stamp or one within `tolerance` of `now` (Unix seconds).
    public static func refusal(of packet: [UInt8], on feed: String, now: TimeInterval = Date().timeIntervalSince1970) -> String? {
        guard let sent = senderTime(in: packet) else { return nil }
        let offset = now - sent
        guard abs(offset) > tolerance else { return nil }
        let header = RTPHeader(packet)
        let when = offset > 0 ? "\(Int(offset.rounded())) s ago" : "\(Int((-offset).rounded())) s ahead of this kiosk's clock"
        return "an SRTP stream (SSRC \(header?.ssrcText ?? "?")) arrived on \(feed) stamped \(when): a recording replayed from an earlier class, "
            + "or a sender whose clock is wrong (keep both kiosks' clocks set, e.g. with NTP); its packets are dropped"
    }
}
