import Glibc

/// A Unix socket's filesystem address, as the control socket binds it and `control` connects to it.
struct UnixSocketAddress {
    /// The longest path a Unix socket may have, in bytes: `sun_path` less its terminating zero.
    static let longestPath = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private var address = sockaddr_un()

    /// nil when `path` is longer than `longestPath`: the kernel would cut it.
    init?(path: String) {
        guard path.utf8.count <= Self.longestPath else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
    }

    /// bind(2) of `descriptor` to this address: 0, or -1 with errno set.
    func bind(_ descriptor: Int32) -> Int32 { withSocketAddress { Glibc.bind(descriptor, $0, $1) } }

    /// connect(2) of `descriptor` to this address: 0, or -1 with errno set.
    func connect(_ descriptor: Int32) -> Int32 { withSocketAddress { Glibc.connect(descriptor, $0, $1) } }

    private func withSocketAddress(_ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
