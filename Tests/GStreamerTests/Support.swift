import Foundation
import Synchronization
import Testing
@testable import GStreamer

/// Shared helpers for the binding tests: small real pipelines and bounded waits.
enum Support {
    /// Initialises GStreamer once; under the leaks tracer, also shuts it down at exit so the tracer reports.
    static func start() throws {
        try GStreamer.initialize()
        if ProcessInfo.processInfo.environment["GST_TRACERS"]?.contains("leaks") == true {
            GStreamer.deinitializeAtExit()
        }
    }

    /// Runs `pipeline` to EOS or error within `timeout`, returning the messages seen; stops it afterwards.
    @discardableResult
    static func runToEnd(_ pipeline: Pipeline, timeout: ClockTime = .seconds(10)) throws -> [Message] {
        let seen = Mutex<[Message]>([])
        let subscription = pipeline.bus.subscribe { message in seen.withLock { $0.append(message) } }
        defer { subscription.cancel() }
        let end = try pipeline.bus.waitForMessage(timeout: timeout, after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        try pipeline.setState(.null)
        guard let end else { throw TestFailure("pipeline did not finish within \(timeout)") }
        if case .error(let error, let debug) = end.view {
            throw TestFailure("pipeline failed: \(error.message) \(debug ?? "")")
        }
        return seen.withLock { $0 }
    }

    /// A fresh temporary file path with `suffix`.
    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("gst-test-\(UUID().uuidString)\(suffix)").path
    }

    /// The repository root (tests read `pipelines/` and `samples/`).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// A failure with a message, for helpers that throw.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A thread-safe counter for streaming-thread callbacks.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
