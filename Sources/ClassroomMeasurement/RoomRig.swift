import Foundation

/// A real-time room between a sink's monitor and a microphone (`scripts/room/room.py`): what the
/// sink plays comes back on the microphone sink's monitor, convolved with a classroom's impulse
/// response, with room noise and `delay` of latency no device reports on top of the rig's own
/// (its 40 ms floor plus the null sinks' buffering: 79–108 ms measured).
public final class RoomRig: Sendable {
    /// The null sink the room plays into; the engine's microphone is its monitor.
    public let microphoneSink: String
    private let module: String
    private let process: Process

    /// Loads the microphone sink and starts the room from `speaker`'s monitor into it, for `seconds`.
    /// `script` is room.py's path; Debian's python3 runs it (numpy, scipy and GStreamer's Python bindings from scripts/setup.sh).
    public init(script: String, speaker: String, delay: Int, seconds: Int, extra: [String] = []) throws {
        microphoneSink = "room_mic_\(UInt32.random(in: 0...UInt32.max))"
        module = try PulseAudioControl.loadNullSink(microphoneSink)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "--source", "\(speaker).monitor", "--sink", microphoneSink, "--delay-ms", "\(delay)", "--seconds", "\(seconds)"] + extra
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            PulseAudioControl.unload(module)
            throw MeasurementError("the room (\(script)) did not start: \(error)")
        }
    }

    /// The microphone device for the engine.
    public var microphone: String { "\(microphoneSink).monitor" }

    /// Ends the room and unloads its sink. SIGKILL: a child of a test or bench thread inherits its blocked SIGTERM.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        PulseAudioControl.unload(module)
    }

    /// room.py under a repository root.
    public static func script(root: URL) -> String { root.appendingPathComponent("scripts/room/room.py").path }
}
