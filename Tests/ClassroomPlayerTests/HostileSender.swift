import Foundation

/// Packets a stranger sends to a kiosk's port on 127.0.0.1: whatever bytes a test makes, from one
/// UDP socket, as fast as the socket takes them or paced like a sender.
enum HostileSender {
    /// Sends each of `packets` to 127.0.0.1:`port`, one every `interval` (as fast as the socket
    /// takes them without one); returns how many the socket took.
    @discardableResult
    static func send(_ packets: [[UInt8]], to port: Int, every interval: Duration? = nil) throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw PlayerTestError.setupFailed("no UDP socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var sent = 0
        for packet in packets {
            let result = packet.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            if result == packet.count { sent += 1 }
            if let interval { usleep(UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)) }
        }
        return sent
    }

    /// An RTP packet (version 2) with these header fields and `payload` bytes of noise.
    static func rtp(payloadType: Int = 111, sequence: UInt16, timestamp: UInt32, ssrc: UInt32, payload: Int = 80) -> [UInt8] {
        var packet: [UInt8] = [0x80, UInt8(payloadType & 0x7f), UInt8(sequence >> 8), UInt8(sequence & 0xff)]
        packet += [24, 16, 8, 0].map { UInt8((timestamp >> $0) & 0xff) }
        packet += [24, 16, 8, 0].map { UInt8((ssrc >> $0) & 0xff) }
        return packet + (0..<payload).map { _ in UInt8.random(in: 0...255) }
    }

    /// The peak resident memory of process `pid` so far, in kB (VmHWM), or 0.
    static func peakMemory(of pid: Int32) -> Int {
        ((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) }) ?? 0
    }
}
