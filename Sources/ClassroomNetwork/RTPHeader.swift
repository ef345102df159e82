/// The fields of an RTP packet's fixed header (RFC 3550 §5.1) that a receiver latches on.
public struct RTPHeader: Sendable, Hashable {
    /// The payload type (7 bits).
    public let payloadType: Int
    /// The synchronisation source: one sender's stream.
    public let ssrc: UInt32
    /// The sequence number.
    public let sequence: UInt16
    /// The media timestamp, in the payload format's clock rate.
    public let timestamp: UInt32

    /// Reads the header at the start of `packet`; nil when it is not RTP version 2 with a whole fixed header.
    public init?(_ packet: [UInt8]) {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return nil }
        payloadType = Int(packet[1] & 0x7f)
        sequence = UInt16(packet[2]) << 8 | UInt16(packet[3])
        timestamp = UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
        ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
    }

    /// The SSRC as RTP tools print it (0x1a2b3c4d).
    public var ssrcText: String { RTPHeader.text(ssrc: ssrc) }

    /// An SSRC as RTP tools print it.
    static func text(ssrc: UInt32) -> String { "0x" + String(ssrc, radix: 16) }

    /// The codec a static payload type stands for (RFC 3551), in parentheses with a leading space, or nothing.
    static func codecName(ofStatic type: Int) -> String {
        switch type {
        case 0: return " (PCMU)"
        case 8: return " (PCMA)"
        case 9: return " (G.722)"
        case 10, 11: return " (L16)"
        case 14: return " (MPEG audio)"
        case 18: return " (G.729)"
        case 26: return " (JPEG video)"
        case 31...34: return " (video)"
        default: return ""
        }
    }
}
