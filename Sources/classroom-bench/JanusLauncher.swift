import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private Janus for the benchmark, started with `scripts/janus-server.sh` (run from the repository root).
enum JanusLauncher {
    /// Starts Janus on `port` and waits (up to 10 s) for its HTTP API; the caller terminates it.
    static func start(port: Int) async throws -> Process {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/janus") else { throw BenchError("janus is not installed (make setup installs it)") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-janus-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["scripts/janus-server.sh", folder.path, "\(port)"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let url = URL(string: "http://127.0.0.1:\(port)/janus/info") else { throw BenchError("no URL for port \(port)") }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: url), (response as? HTTPURLResponse)?.statusCode == 200 { return process }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw BenchError("janus did not answer on port \(port) within 10 s")
    }
}
