import Foundation

/// A real-time room between a sink's monitor and a microphone (`scripts/room/room.py`): what the
/// sink plays comes back on the microphone sink's monitor, convolved with a classroom's impulse
/// response, with room noise and `delay` of latency no device reports on top of the rig's own
/// (its 40 ms floor plus the null sinks' buffering: 34–57 ms measured once both sinks play).
public final class RoomRig: Sendable {
    /// The null sink the room plays into; the engine's microphone is its monitor.
    public let microphoneSink: String
    private let module: String
    private let process: Process

    /// Loads the microphone sink, starts the room from `speaker`'s monitor into it for `seconds`, and
    /// returns once both sinks play what they are given (`waitUntilPlaying`). `script` is room.py's
    /// path; Debian's python3 runs it (numpy, scipy and GStreamer's Python bindings from scripts/setup.sh).
    public static func start(script: String, speaker: String, delay: Int, seconds: Int, extra: [String] = []) async throws -> RoomRig {
        let room = try RoomRig(script: script, speaker: speaker, delay: delay, seconds: seconds, extra: extra)
        do {
            try await room.waitUntilPlaying(speaker: speaker)
        } catch {
            room.stop()
            throw error
        }
        // The measurement starts now: room.py places its near-end talker (--near-at) from here.
        kill(room.process.processIdentifier, SIGUSR1)
        return room
    }

    private init(script: String, speaker: String, delay: Int, seconds: Int, extra: [String]) throws {
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

    /// Waits until the speaker and the microphone sink are past their idle blocks: a null sink
    /// nobody played into renders 2 s at a time, and the room's first echo, the engine's output and
    /// its microphone waited that out (0–4 s, so the echo path and the time to find it varied by run).
    private func waitUntilPlaying(speaker: String, within timeout: Duration = .seconds(6)) async throws {
        let deadline = ContinuousClock.now + timeout
        var latencies: [Duration?] = []
        while ContinuousClock.now < deadline, process.isRunning {
            latencies = try [speaker, microphoneSink].map { try PulseAudioControl.latency(ofSink: $0) }
            if latencies.allSatisfy({ ($0 ?? .seconds(60)) < Self.playingLatency }) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let said = zip([speaker, microphoneSink], latencies).map { "\($0): \($1.map { "\($0)" } ?? "no such sink")" }
        throw MeasurementError(process.isRunning
            ? "the room's sinks did not start playing within \(timeout) (\(said.joined(separator: ", ")))"
            : "the room (room.py) exited with status \(process.terminationStatus) before it played")
    }

    /// A sink renders no further ahead than this once a stream plays into it (under 10 ms measured).
    static let playingLatency = Duration.milliseconds(100)

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
