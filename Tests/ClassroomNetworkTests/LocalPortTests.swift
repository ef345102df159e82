import ClassroomNetwork
import Foundation
import Testing

@Suite("LocalPort: free ports a receiver keeps to itself")
struct LocalPortTests {
    @Test("UDP and TCP ports are free, outside the ephemeral range, on IPv4 and IPv6", arguments: ["127.0.0.1", "::1"])
    func outsideEphemeralRange(address: String) throws {
        let range = LocalPort.ephemeralRange
        for transport in [LocalPort.Transport.udp, .tcp] {
            for _ in 0..<50 {
                let port = try LocalPort.free(transport, on: address)
                #expect(!range.contains(port) && port >= 1024, "\(transport) port \(port), the ephemeral range is \(range)")
                // Free means a socket of that transport without SO_REUSEADDR binds it. At once: the
                // port is free only now, and the tests running beside this one draw from the same range.
                let descriptor = socket(address.contains(":") ? AF_INET6 : AF_INET, Int32(transport == .udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
                defer { close(descriptor) }
                #expect(try LocalPort.bind(descriptor, to: address, port: port) == port)
            }
        }
    }

    @Test("a port held without reuse is never handed out", arguments: ["127.0.0.1", "::1"])
    func heldPortSkipped(address: String) throws {
        // Hold 200 ports from the candidates, then ask 500 times: none of the held comes back.
        var held: [Int32] = [], heldPorts = Set<Int>()
        defer { held.forEach { close($0) } }
        for _ in 0..<200 {
            let port = try LocalPort.free(.udp, on: address)
            let descriptor = socket(address.contains(":") ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard (try? LocalPort.bind(descriptor, to: address, port: port)) != nil else { close(descriptor); continue }
            held.append(descriptor)
            heldPorts.insert(port)
        }
        let handed = try (0..<500).map { _ in try LocalPort.free(.udp, on: address) }
        #expect(heldPorts.count >= 190)
        #expect(heldPorts.isDisjoint(with: handed), "\(heldPorts.intersection(handed))")
    }
}
