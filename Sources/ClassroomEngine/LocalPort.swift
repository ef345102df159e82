import Foundation

/// A UDP port nobody uses now on a local address, for a receiver that must tell a server where to
/// send (a moment later another program could take it; the receiver then fails to bind and says so).
enum LocalUDPPort {
    static func free(on address: String) throws(EngineError) -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw .badEndpoint(address, reason: "no UDP socket can be opened (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, address, &local.sin_addr) == 1 else { throw .badEndpoint(address, reason: "not an IPv4 address of this machine") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw .badEndpoint(address, reason: "no free UDP port on it (\(String(cString: strerror(errno))))") }
        return Int(UInt16(bigEndian: local.sin_port))
    }
}
