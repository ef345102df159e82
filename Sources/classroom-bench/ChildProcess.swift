import ClassroomMeasurement
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process whose resource use is read the way `/usr/bin/time` does: wait4's rusage.
///
/// Its standard output goes to a file (read back when it ends); standard error is inherited.
/// Waiting happens on a thread of its own, never on the cooperative pool.
final class ChildProcess: Sendable {
    /// What a finished child used.
    struct Outcome: Sendable {
        /// Exit status (128 + signal when killed).
        let status: Int32
        /// User + system CPU seconds.
        let cpuSeconds: Double
        /// Peak resident set size, KiB.
        let peakRSSKiB: Int
        /// Wall seconds from spawn to exit.
        let wallSeconds: Double
        /// CLOCK_MONOTONIC just before the spawn.
        let spawnedAt: UInt64
        /// Everything it wrote to standard output.
        let output: String
    }

    let pid: pid_t
    let command: String
    private let spawnedAt: UInt64
    private let outputPath: String

    /// Starts `executable` with `arguments`, in this process's directory and environment.
    init(_ executable: String, _ arguments: [String]) throws {
        command = ([executable] + arguments).joined(separator: " ")
        outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out").path
        spawnedAt = ProcessMeters.monotonicNanoseconds()
        do {
            pid = try SpawnedProcess.start(executable, arguments, output: outputPath)
        } catch {
            throw BenchError("\(error)")
        }
    }

    /// Waits for the child (on a dedicated thread) and returns what it used and wrote.
    func wait() async -> Outcome {
        let pid = self.pid, spawnedAt = self.spawnedAt, outputPath = self.outputPath
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
                let ended = ProcessMeters.monotonicNanoseconds()
                let signal = status & 0x7f
                let exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
                let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(atPath: outputPath)
                continuation.resume(returning: Outcome(status: exit, cpuSeconds: usage.ru_utime.seconds + usage.ru_stime.seconds,
                                                       peakRSSKiB: usage.ru_maxrss, wallSeconds: Double(ended - spawnedAt) / 1e9,
                                                       spawnedAt: spawnedAt, output: output))
            }
        }
    }

    /// Runs a command to its end.
    static func run(_ executable: String, _ arguments: [String]) async throws -> Outcome {
        try await ChildProcess(executable, arguments).wait()
    }

    /// The last line of a child's output decoded as `T` (workers print one JSON line at the end).
    static func decode<T: Decodable>(_ type: T.Type, from outcome: Outcome, command: String) throws -> T {
        guard outcome.status == 0 else { throw BenchError("'\(command)' exited with status \(outcome.status)") }
        guard let line = outcome.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw BenchError("'\(command)' printed no result")
        }
        return try JSONDecoder().decode(T.self, from: Data(line.utf8))
    }
}
