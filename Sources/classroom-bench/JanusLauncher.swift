import ClassroomMeasurement
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private Janus for the benchmark, started with `scripts/janus-server.sh` (run from the repository root).
enum JanusLauncher {
    /// Starts Janus on `port` and waits (up to 10 s) for its HTTP API; the caller terminates it.
    static func start(port: Int) async throws -> Process {
        let process = try launch(["/bin/bash", "scripts/janus-server.sh", temporaryFolder(), "\(port)"], log: nil)
        guard let url = URL(string: "http://127.0.0.1:\(port)/janus/info") else { throw BenchError("no URL for port \(port)") }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: url), (response as? HTTPURLResponse)?.statusCode == 200 { return process }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw BenchError("janus did not answer on port \(port) within 10 s")
    }

    /// Starts Janus in the server namespace of `net`, serving on its address and `port`; waits (up
    /// to 10 s) until its log says the web server started. The caller kills it.
    static func start(port: Int, in net: NetworkNamespaces) async throws -> Process {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-janus-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = try launch(["/usr/sbin/ip"] + net.exec(in: net.server, ["/bin/bash", "scripts/janus-server.sh", temporaryFolder(), "\(port)", net.serverAddress]), log: log)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("webserver started") { return process }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(process.processIdentifier, SIGKILL)
        throw BenchError("janus did not start in namespace \(net.server) within 10 s")
    }

    /// Stops a Janus this launched, and waits for it. SIGKILL: started from a pool thread, Janus
    /// outlived SIGTERM (two were left running after bench runs; from a shell it exits on SIGTERM).
    static func stop(_ janus: Process) {
        kill(janus.processIdentifier, SIGKILL)
        janus.waitUntilExit()
    }

    private static func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-janus-\(UUID().uuidString)").path
    }

    private static func launch(_ command: [String], log: URL?) throws -> Process {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/janus") else { throw BenchError("janus is not installed (make setup installs it)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try log.map { try FileHandle(forWritingTo: $0) } ?? FileHandle.nullDevice
        process.standardError = process.standardOutput
        try process.run()
        return process
    }
}
