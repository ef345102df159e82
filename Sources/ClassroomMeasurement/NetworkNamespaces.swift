import Foundation

/// Two network namespaces joined by a veth pair, 10.201.N.1/24 in `server` and 10.201.N.2/24 in
/// `kiosks` (N random per use): a Janus host and a kiosk host as the README deploys them, made and
/// torn down by a test or the benchmark (root only). WebRTC needs them: libnice and Janus skip
/// loopback, and the machine's own interfaces are never used.
public final class NetworkNamespaces: @unchecked Sendable {
    // Only its own immutable names.
    public let server: String
    public let kiosks: String
    public let serverAddress: String
    public let kioskAddress: String
    /// The server's end of the veth pair: what crosses between the hosts passes it.
    public let serverInterface: String

    /// Whether namespaces can be made here (root, iproute2).
    public static var available: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") }

    public init() throws {
        let n = Int.random(in: 1...254)
        server = "cr-janus-\(n)"
        kiosks = "cr-kiosks-\(n)"
        serverAddress = "10.201.\(n).1"
        kioskAddress = "10.201.\(n).2"
        let serverEnd = "crj\(n)", kioskEnd = "crk\(n)"
        serverInterface = serverEnd
        let steps = [
            ["netns", "add", server], ["netns", "add", kiosks],
            ["link", "add", serverEnd, "type", "veth", "peer", "name", kioskEnd],
            ["link", "set", serverEnd, "netns", server], ["link", "set", kioskEnd, "netns", kiosks],
            ["-n", server, "addr", "add", "\(serverAddress)/24", "dev", serverEnd], ["-n", server, "link", "set", serverEnd, "up"],
            ["-n", server, "link", "set", "lo", "up"],
            ["-n", kiosks, "addr", "add", "\(kioskAddress)/24", "dev", kioskEnd], ["-n", kiosks, "link", "set", kioskEnd, "up"],
            ["-n", kiosks, "link", "set", "lo", "up"],
        ]
        for step in steps {
            guard NetworkNamespaces.ip(step) else {
                tearDown()
                throw MeasurementError("ip \(step.joined(separator: " ")) failed")
            }
        }
    }

    /// `ip netns exec NAMESPACE` before a command.
    public func exec(in namespace: String, _ command: [String]) -> [String] { ["netns", "exec", namespace] + command }

    /// Deletes both namespaces (the veth pair goes with them).
    public func tearDown() {
        _ = NetworkNamespaces.ip(["netns", "del", server])
        _ = NetworkNamespaces.ip(["netns", "del", kiosks])
    }

    deinit { tearDown() }

    @discardableResult
    private static func ip(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
