import Foundation
import GStreamer

/// The resolved output: the sound server's default device, a WAV file, or nowhere.
enum OutputSink: CustomStringConvertible {
    case soundServer
    case wav(path: String)
    case null

    /// Resolves `--output`: `auto` uses the sound server when one answers, else the fallback WAV.
    static func resolve(_ choice: OutputChoice, fallbackWav: String) throws -> OutputSink {
        switch choice {
        case .null: return .null
        case .wav(let path): return try .wavFile(path)
        case .soundServer:
            guard try soundServerAnswers() else { throw PlayerError.noSoundServer }
            return .soundServer
        case .auto:
            return try soundServerAnswers() ? .soundServer : try .wavFile(fallbackWav)
        }
    }

    /// True when a pulsesink can open a connection (PulseAudio, or PipeWire's pulse server).
    static func soundServerAnswers() throws -> Bool {
        guard ElementFactory.isAvailable("pulsesink") else { return false }
        let probe = try ElementFactory.make("pulsesink")
        defer { _ = try? probe.setState(.null) }
        // READY opens the context; it fails at once when no server is there.
        return (try? probe.setState(.ready)) != nil
    }

    /// A WAV destination whose folder exists and is writable.
    private static func wavFile(_ path: String) throws -> OutputSink {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw PlayerError.cannotWrite(path: path, reason: error.localizedDescription)
        }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw PlayerError.cannotWrite(path: path, reason: "the file cannot be created there")
        }
        return .wav(path: url.path)
    }

    /// The elements after the mixer's level meter, first to last.
    func makeElements() throws -> [Element] {
        switch self {
        case .soundServer:
            return [try ElementFactory.make("pulsesink", name: "output-sink", properties: [
                "stream-properties": .string("props,media.role=video,application.name=classroom-player"),
            ])]
        case .wav(let path):
            return [try ElementFactory.make("wavenc", name: "wav-encoder"),
                    try ElementFactory.make("filesink", name: "output-sink", properties: ["location": .string(path), "sync": false])]
        case .null:
            return [try ElementFactory.make("fakesink", name: "output-sink", properties: ["sync": false])]
        }
    }

    /// True when the output plays in real time (so video should sync too).
    var isRealTime: Bool { if case .soundServer = self { return true }; return false }

    var description: String {
        switch self {
        case .soundServer: return "the sound server's default output"
        case .wav(let path): return "WAV file \(path)"
        case .null: return "nowhere (--output null)"
        }
    }
}
