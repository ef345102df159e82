import ClassroomEngine
import GStreamer
import Logging

/// What every worker process starts with.
enum WorkerSetup {
    /// A logger that only reports errors: a worker's standard output is its result.
    static func logger(_ name: String) -> Logger {
        var logger = Logger(label: "classroom-bench.\(name)")
        logger.logLevel = .error
        return logger
    }

    /// GStreamer initialised and a started engine with the headless output (fakesink in real time).
    static func headlessEngine(_ name: String) throws -> AudioEngine {
        try GStreamer.initialize()
        let engine = try AudioEngine(output: .discard, logger: logger(name))
        try engine.start()
        return engine
    }
}
