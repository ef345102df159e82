import Foundation

/// A port nobody uses now on 127.0.0.1, for the bench's receivers and servers.
enum LoopbackPort {
    /// A free UDP port.
    static func udp() throws -> Int { try free(Int32(SOCK_DGRAM.rawValue)) }
    /// A free TCP port.
    static func tcp() throws -> Int { try free(Int32(SOCK_STREAM.rawValue)) }

    private static func free(_ type: Int32) throws -> Int {
        let descriptor = socket(AF_INET, type, 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("no free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
