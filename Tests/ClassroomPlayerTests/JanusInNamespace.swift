import ClassroomMeasurement
import Foundation

/// Debian's Janus (scripts/janus-server.sh: rooms 1234 with plain RTP, 2222 without, 3333 with a
/// pin) serving HTTP on port 8088 of a test's server namespace, its log in the test's folder.
final class JanusInNamespace: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, terminate, isRunning).
    private let process: Process
    private let logFile: URL

    init(_ net: NetworkNamespaces, folder: URL) throws {
        let janusFolder = folder.appendingPathComponent("janus")
        logFile = folder.appendingPathComponent("janus.log")
        try FileManager.default.createDirectory(at: janusFolder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = net.exec(in: net.server, ["/bin/bash", Fixtures.root.appendingPathComponent("scripts/janus-server.sh").path, janusFolder.path, "8088", net.serverAddress])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: logFile)
        process.standardError = process.standardOutput
        try process.run()
    }

    /// What Janus logged so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits (up to 10 s) until the HTTP (or HTTPS) API is up.
    func started() async -> Bool { await waitUntil(timeout: .seconds(10)) { self.log.contains("webserver started") } }

    func stop() { Fixtures.stop(process) }
}
