import ClassroomMeasurement
import Foundation
import Logging
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

/// Real signals into the engine and measurements of what comes out.
enum EngineSupport {
    static let logger: Logger = {
        var logger = Logger(label: "engine-test")
        // CLASSROOM_AUDIO_TEST_LOG=info (or debug) shows the engine's moves and retries when chasing a failure.
        logger.logLevel = ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }()

    static func start() throws {
        try GStreamer.initialize()
        if ProcessInfo.processInfo.environment["GST_TRACERS"]?.contains("leaks") == true {
            GStreamer.deinitializeAtExit()
        }
    }

    /// A new folder of its own under the temporary directory, named from `prefix`, for one test's files.
    static func scratchFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs a gst-launch description to its end (test media); throws unless it ended with EOS within `timeout`.
    static func render(_ description: String, timeout: ClockTime = .seconds(30)) throws {
        let pipeline = try Pipeline.parse(description)
        defer { _ = try? pipeline.setState(.null) }
        let end = try pipeline.bus.waitForMessage(timeout: timeout, after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        guard let end, case .endOfStream = end.view else { throw EngineTestFailure("rendering failed: \(description) (\(end.map { "\($0.view)" } ?? "no end within \(timeout)"))") }
    }

    /// True when `make test` started a PulseAudio server for this run.
    static var hasPulse: Bool { ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1" }

    /// True when that server is PipeWire's pulse server (scripts/with-pipewire.sh).
    static var onPipeWire: Bool { ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_SERVER"] == "pipewire" }
}

/// Waits, at most `timeout`, for state that changes on another queue (the controller's, a device
/// monitor's) and has no message of its own to wait for; returns whether it came true.
func waitFor(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    await Poll.until(within: timeout, every: .milliseconds(10), condition)
}
