import ClassroomEngine
import Foundation

/// The address of this machine that packets to a host leave from: what a receiver must bind and
/// name to a server that sends to it. A UDP `connect` picks the route (nothing is sent) and
/// `getsockname` says its source address. Janus in another network namespace than the kiosks
/// was told 127.0.0.1 and sent the room's mix nowhere (both kiosks joined, neither heard a thing).
public enum LocalRoute {
    /// The local address (IPv4 or IPv6, as the host resolves) from which `host`:`port` is reached.
    public static func sourceAddress(toward host: String, port: Int) throws(EngineError) -> String {
        let resolved = ResolvedHost.addresses(of: host, port: port, type: SOCK_DGRAM)
        if let failure = resolved.failure { throw .badEndpoint(host, reason: failure) }
        var why = "no address"
        for address in resolved.addresses {
            let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue), 0)
            guard descriptor >= 0 else { why = String(cString: strerror(errno)); continue }
            defer { close(descriptor) }
            guard address.connect(descriptor) else {
                why = String(cString: strerror(errno))
                continue
            }
            var local = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let named = withUnsafeMutablePointer(to: &local) { pointer -> Bool in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
            }
            guard named else { why = String(cString: strerror(errno)); continue }
            let family = Int32(local.ss_family)
            let converted = withUnsafePointer(to: &local) { pointer -> Bool in
                if family == AF_INET6 {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                        var bytes = address.pointee.sin6_addr
                        return inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var bytes = address.pointee.sin_addr
                    return inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil
                }
            }
            if converted { return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        throw .badEndpoint(host, reason: "no route to it from this machine (\(why))")
    }
}
