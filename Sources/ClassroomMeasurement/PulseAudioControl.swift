import Foundation

/// Plugs and unplugs virtual devices on the PulseAudio server in the environment
/// (scripts/with-pulseaudio.sh starts a private one) with pactl.
public enum PulseAudioControl {
    /// Runs pactl with `arguments` and returns what it printed; throws when it fails.
    @discardableResult
    public static func pactl(_ arguments: String...) throws -> String { try pactl(arguments) }

    /// Runs pactl with `arguments` and returns what it printed; throws when it fails.
    @discardableResult
    public static func pactl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw MeasurementError("pactl \(arguments.joined(separator: " ")) failed (is a PulseAudio server running? scripts/with-pulseaudio.sh starts one)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Loads a null sink called `name` (its monitor is `name.monitor`); returns the module id.
    public static func loadNullSink(_ name: String, properties: String? = nil) throws -> String {
        var arguments = ["load-module", "module-null-sink", "sink_name=\(name)"]
        if let properties { arguments.append("sink_properties=\"\(properties)\"") }
        return try pactl(arguments)
    }

    /// Unloads a module; errors are ignored (the server may be gone already).
    public static func unload(_ module: String) { _ = try? pactl("unload-module", module) }

    /// What `sink` has rendered and not yet played (`pactl list sinks`, "Latency:"); nil when there
    /// is no such sink. An idle null sink renders 2 s blocks, and a stream that arrives meanwhile
    /// waits out the block: 1.97 s here until it ends, under 10 ms once a low-latency stream plays.
    public static func latency(ofSink sink: String) throws -> Duration? {
        var name: Substring?
        for line in try pactl("list", "sinks").split(separator: "\n") {
            let field = line.drop { $0 == " " || $0 == "\t" }
            if field.hasPrefix("Name: ") { name = field.dropFirst(6) }
            if name == Substring(sink), field.hasPrefix("Latency: "), let microseconds = Int64(field.dropFirst(9).prefix { $0.isNumber }) {
                return .microseconds(microseconds)
            }
        }
        return nil
    }

    /// Where the server has things now, for a failure message: its default sink and each playback
    /// stream's application and sink (`pactl list short`, sink ids resolved to names).
    public static func placement() -> String {
        guard let sinks = try? pactl("list", "short", "sinks"), let inputs = try? pactl("list", "sink-inputs") else { return "the server does not answer" }
        var names: [Substring: Substring] = [:]
        for line in sinks.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count > 1 { names[fields[0]] = fields[1] }
        }
        var streams: [String] = []
        var sink: Substring?
        for line in inputs.split(separator: "\n") {
            let field = line.drop { $0 == " " || $0 == "\t" }
            if field.hasPrefix("Sink: ") { sink = field.dropFirst(6) }
            if field.hasPrefix("application.name = "), let id = sink {
                streams.append("\(field.dropFirst(19)) on \(names[id] ?? id)")
                sink = nil
            }
        }
        let fallback = (try? pactl("get-default-sink")) ?? "?"
        return "default sink \(fallback); sinks \(names.values.sorted().joined(separator: ", ")); streams: \(streams.isEmpty ? "none" : streams.joined(separator: "; "))"
    }

    /// True when a server answers.
    public static var isAvailable: Bool { (try? pactl("info")) != nil }
}
