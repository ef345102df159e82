import ClassroomEngine
import Foundation

/// A port nobody uses now on a local IPv4 address — for a receiver that must tell a server where to
/// send, the bench's receivers and the tests' servers. A moment later another program could take
/// it; whoever binds it then fails and says so.
///
/// The port comes from below the kernel's ephemeral range, never from `bind(0)`: every program's
/// `bind(0)` draws from that range, and with SO_REUSEPORT on both sides (GLib sets it on any
/// datagram socket bound with reuse: udpsrc's default, every udpsink) the kernel hands out a port
/// that is held, then gives each sender's packets to one of the two sockets — a receiver on it
/// heard nothing from a player half the time and, waiting for its EOS, never ended.
public enum LocalPort {
    public enum Transport: Sendable { case udp, tcp }

    /// A free `transport` port on `address` (IPv4, or IPv6 when it has a colon), outside the ephemeral range.
    public static func free(_ transport: Transport = .udp, on address: String = "127.0.0.1") throws(EngineError) -> Int {
        let candidates = portsOutsideEphemeralRange()
        // 64 random tries, then the kernel's own pick rather than no port at all.
        for port in (0..<64).compactMap({ _ in candidates?.randomElement() }) + [0] {
            let descriptor = socket(address.contains(":") ? AF_INET6 : AF_INET, Int32(transport == .udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw .badEndpoint(address, reason: "no socket can be opened (\(String(cString: strerror(errno))))") }
            defer { close(descriptor) }
            switch try bound(descriptor, to: address, port: port) {
            case .success(let port): return port
            // A taken candidate is passed over; any other failure is the address's own.
            case .failure(let failure) where failure.code == EADDRINUSE && port != 0: continue
            case .failure(let failure): throw failure.refusal(address: address, port: port)
            }
        }
        throw .badEndpoint(address, reason: "no free port is left on it")
    }

    /// 20000 up to the start of /proc/sys/net/ipv4/ip_local_port_range (32768 by default), or, when
    /// the range starts lower, above its end; empty (only `bind(0)` left) when neither has room.
    static func portsOutsideEphemeralRange() -> ClosedRange<Int>? {
        let range = ephemeralRange
        if range.lowerBound > 21000 { return 20000...(range.lowerBound - 1) }
        if range.upperBound < 64535 { return (range.upperBound + 1)...65535 }
        return nil
    }

    /// The kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range), which every program's
    /// `bind(0)` draws from; Linux's default 32768...60999 when it cannot be read.
    public static var ephemeralRange: ClosedRange<Int> {
        let bounds = ((try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32768...60999 }
        return bounds[0]...bounds[1]
    }

    /// Binds `descriptor` to `address`:`port` (0: any free one) and returns the port bound.
    @discardableResult
    public static func bind(_ descriptor: Int32, to address: String = "127.0.0.1", port: Int) throws(EngineError) -> Int {
        switch try bound(descriptor, to: address, port: port) {
        case .success(let port): return port
        case .failure(let failure): throw failure.refusal(address: address, port: port)
        }
    }

    /// A failed `bind` or `getsockname`: its errno, read as the call returned (any Swift code after
    /// it, an error's message included, may change `errno`).
    private struct SystemFailure: Error {
        let code: Int32
        func refusal(address: String, port: Int) -> EngineError {
            .badEndpoint(address, reason: "cannot bind port \(port) on it (\(String(cString: strerror(code))))")
        }
    }

    /// Binds: the port bound, or the system's failure; throws for an address that is not one.
    private static func bound(_ descriptor: Int32, to address: String, port: Int) throws(EngineError) -> Result<Int, SystemFailure> {
        if address.contains(":") {
            var local = sockaddr_in6()
            local.sin6_family = sa_family_t(AF_INET6)
            local.sin6_port = UInt16(port).bigEndian
            guard inet_pton(AF_INET6, address, &local.sin6_addr) == 1 else { throw .badEndpoint(address, reason: "not an IPv6 address of this machine") }
            return bindAndName(descriptor, &local).map { Int(UInt16(bigEndian: local.sin6_port)) }
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, address, &local.sin_addr) == 1 else { throw .badEndpoint(address, reason: "not an IPv4 address of this machine") }
        return bindAndName(descriptor, &local).map { Int(UInt16(bigEndian: local.sin_port)) }
    }

    /// `bind` and `getsockname` for either family's address: `local` ends with the port bound.
    private static func bindAndName<Address>(_ descriptor: Int32, _ local: inout Address) -> Result<Void, SystemFailure> {
        var length = socklen_t(MemoryLayout<Address>.size)
        return withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 ? .success(()) : .failure(SystemFailure(code: errno))
            }
        }
    }
}
