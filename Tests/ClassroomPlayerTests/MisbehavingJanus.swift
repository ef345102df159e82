import Foundation

/// `scripts/misbehaving-janus.py MODE PORT` for one test: a Janus HTTP API on 127.0.0.1 that
/// misbehaves in one way (see the script), and what it has seen so far.
final class MisbehavingJanus: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, isRunning, kill).
    let port: Int
    private let process: Process
    private let log: URL

    /// Starts it and waits (up to 10 s) until it listens; `release` is the file late-forbidden waits for.
    init(_ mode: String, release: URL? = nil, in folder: URL) async throws {
        port = try Fixtures.freeTCPPort()
        log = folder.appendingPathComponent("janus-\(mode).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixtures.root.appendingPathComponent("scripts/misbehaving-janus.py").path, mode, "\(port)"] + (release.map { [$0.path] } ?? [])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        guard await waitUntil(timeout: .seconds(10), { self.seen.contains("listening") }) else {
            Fixtures.stop(process)
            throw PlayerTestError.setupFailed("misbehaving-janus.py \(mode) did not start: \(seen)")
        }
    }

    /// The `--room` address of its room 1234.
    var room: String { "janus://127.0.0.1:\(port)/1234?display=kiosk" }

    /// Its log so far: one line per request.
    var seen: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    func stop() { Fixtures.stop(process) }

    deinit { Fixtures.stop(process) }
}
