import GStreamer

/// What an Opus packet's first bytes say about it (RFC 6716 §3.1): how much audio it carries.
enum OpusPacket {
    /// The audio `packet` carries (its TOC byte's frame size times its frame count), or nil for an
    /// empty or malformed packet; at most 120 ms, the longest Opus allows.
    static func duration(of packet: [UInt8]) -> ClockTime? {
        guard let toc = packet.first else { return nil }
        let configuration = Int(toc >> 3)
        let frame: Int   // microseconds
        switch configuration {
        case 0..<12: frame = [10_000, 20_000, 40_000, 60_000][configuration % 4]   // SILK
        case 12..<16: frame = configuration % 2 == 0 ? 10_000 : 20_000             // hybrid
        default: frame = [2_500, 5_000, 10_000, 20_000][configuration % 4]          // CELT
        }
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return nil }
            frames = Int(packet[1] & 63)
        }
        let total = frames * frame
        guard total > 0, total <= 120_000 else { return nil }
        return .microseconds(total)
    }
}
