import Foundation

/// The socket addresses a host name or IPv4/IPv6 literal resolves to (`getaddrinfo`), each ready
/// for `connect`: what `TCPConnection` and `LocalRoute` try in turn.
struct ResolvedHost {
    /// One address: its family and its `sockaddr`.
    struct Address {
        let family: Int32
        private var storage = sockaddr_storage()
        private let length: socklen_t

        fileprivate init(_ info: addrinfo) {
            family = info.ai_family
            length = info.ai_addrlen
            withUnsafeMutableBytes(of: &storage) { target in
                guard let source = info.ai_addr else { return }
                target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: min(Int(info.ai_addrlen), target.count)))
            }
        }

        /// `connect(descriptor)` to this address; true when it connected or is connecting (non-blocking).
        func connect(_ descriptor: Int32) -> Bool {
            withUnsafeBytes(of: storage) { bytes in
                bytes.withMemoryRebound(to: sockaddr.self) { Glibc.connect(descriptor, $0.baseAddress, length) == 0 || errno == EINPROGRESS }
            }
        }
    }

    /// Resolves `host`:`port` for sockets of `type` (SOCK_STREAM, SOCK_DGRAM); nil with why when it cannot.
    static func addresses(of host: String, port: Int, type: __socket_type) -> (addresses: [Address], failure: String?) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(type.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, "\(port)", &hints, &list)
        guard resolved == 0 else { return ([], "\(host) cannot be resolved (\(String(cString: gai_strerror(resolved))))") }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry = list
        while let current = entry {
            addresses.append(Address(current.pointee))
            entry = current.pointee.ai_next
        }
        return (addresses, addresses.isEmpty ? "\(host) has no address" : nil)
    }
}
