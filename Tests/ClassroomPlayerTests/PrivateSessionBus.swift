import Foundation

/// A private D-Bus session bus (`dbus-daemon --session`) on a socket in the test's folder, and
/// playerctl talking on it: nothing reaches the desktop's bus.
final class PrivateSessionBus: Sendable {
    /// DBUS_SESSION_BUS_ADDRESS for the player and the clients.
    let address: String
    private let daemon: ProcessBox

    /// Process is thread-safe for what is used here (terminate, waitUntilExit).
    private struct ProcessBox: @unchecked Sendable {
        let process: Process
    }

    /// Starts the daemon and waits (bounded) for its socket.
    init(in directory: URL) throws {
        let socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        daemon = ProcessBox(process: try Fixtures.start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(address)"]))
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(20_000) }
        guard FileManager.default.fileExists(atPath: socket) else {
            throw PlayerTestError.setupFailed("dbus-daemon --session made no socket at \(socket) within 10 s (is the dbus-daemon package installed? make setup)")
        }
    }

    /// Runs `playerctl -p classroom_player ARGUMENTS…` (or `playerctl -l`) on this bus; its exit status and trimmed output.
    func playerctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/playerctl")
        process.arguments = arguments == ["-l"] ? arguments : ["-p", "classroom_player"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts `playerctl -p classroom_player ARGUMENTS…` in the background, its output going to `output`.
    func start(_ arguments: [String], output: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/playerctl")
        process.arguments = ["-p", "classroom_player"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts `dbus-monitor` on this bus for `rule` (e.g. "type='signal',member='Seeked'"), its output going to `output`.
    func monitor(_ rule: String, output: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        process.arguments = ["--address", address, rule]
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Stops the daemon. SIGKILL: a child started from a Dispatch worker thread inherits its
    /// blocked signals, and dbus-daemon started so never sees SIGTERM.
    func stop() {
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
    }
}
