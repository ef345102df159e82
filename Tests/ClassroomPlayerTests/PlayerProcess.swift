import ClassroomMeasurement
import Foundation
import Testing

/// The built `classroom-player`, run as a subprocess the way people and systemd run it.
final class PlayerProcess: @unchecked Sendable {
    // Process is thread-safe for what is used here (waitUntilExit, terminationStatus, signals).
    let process = Process()
    let stdoutFile: URL
    let stderrFile: URL
    let stdin = Pipe()

    /// The executable: $CLASSROOM_PLAYER, else beside this test bundle in the scratch path's debug folder.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["CLASSROOM_PLAYER"] { return URL(fileURLWithPath: path) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("classroom-player")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Fixtures.root.appendingPathComponent(".build/debug/classroom-player")
    }

    /// Starts `classroom-player arguments…` (or `executable`) in `directory`, with stdout and stderr
    /// going to files and `environment` added to the test's own.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], executable: URL = PlayerProcess.executable) throws {
        stdoutFile = directory.appendingPathComponent("stdout-\(UUID().uuidString).txt")
        stderrFile = directory.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.currentDirectoryURL = directory
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
    }

    /// Runs to the end (at most `timeout`) and returns the exit status, stdout and stderr.
    static func run(_ arguments: [String], in directory: URL, timeout: Duration = .seconds(60), input: String? = nil, environment: [String: String] = [:]) async throws
        -> (status: Int32, stdout: String, stderr: String) {
        let player = try PlayerProcess(arguments, in: directory, environment: environment)
        if let input { player.stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try player.stdin.fileHandleForWriting.close()
        let status = try await player.exitStatus(within: timeout)
        return (status, player.stdout, player.stderr)
    }

    var stdout: String { (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    /// Waits (bounded) for the process to end; kills it and fails when it does not.
    func exitStatus(within timeout: Duration) async throws -> Int32 {
        let ended = await waitUntil(timeout: timeout) { !self.process.isRunning }
        if !ended {
            process.interrupt()
            kill(process.processIdentifier, SIGKILL)
            Issue.record("classroom-player did not end within \(timeout); stderr:\n\(stderr)")
            throw PlayerTestError.timedOut
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends a signal.
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: stdoutFile)
        try? FileManager.default.removeItem(at: stderrFile)
    }
}

enum PlayerTestError: Error {
    case timedOut
    case setupFailed(String)
}

/// Waits, at most `timeout`, for a condition another process makes true (a file appears, a
/// line is written); returns whether it came true.
func waitUntil(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    await Poll.until(within: timeout, condition)
}
