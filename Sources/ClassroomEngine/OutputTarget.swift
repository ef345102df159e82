import GStreamer

/// Where the engine's mix is played.
public enum OutputTarget: Sendable, Hashable, CustomStringConvertible {
    /// The sound server (PulseAudio or PipeWire's pulse server); nil device = the server's default.
    case soundServer(device: String?)
    /// A WAV file, written in real time and finalised when the engine stops.
    case wavFile(path: String)
    /// Discarded, in real time (headless runs and tests).
    case discard

    public var description: String {
        switch self {
        case .soundServer(let device): return device.map { "sound-server device '\($0)'" } ?? "the sound server's default output"
        case .wavFile(let path): return "WAV file \(path)"
        case .discard: return "nowhere (discarded in real time)"
        }
    }

    /// The elements after the echo probe, first to last; the last one is named `output-sink`.
    /// A sound-server stream asks for `buffer` ahead of the device, refilled every 10 ms block, and
    /// carries `streamID` as `EngineGraph.outputStreamKey`, by which the engine finds it to move it.
    func makeElements(mediaRole: String, buffer: ClockTime, streamID: String) throws(GStreamerError) -> [Element] {
        switch self {
        case .soundServer(let device):
            let properties = Self.streamProperties(device: device, buffer: buffer, mediaRole: mediaRole,
                                                   naming: "\(EngineGraph.outputStreamKey)=(string)\(streamID)")
            return [try ElementFactory.make("pulsesink", name: EngineGraph.outputSink, properties: properties)]
        case .wavFile(let path):
            return [try ElementFactory.make("wavenc", name: EngineGraph.outputEncoder),
                    try ElementFactory.make("filesink", name: EngineGraph.outputSink, properties: ["location": .string(path), "sync": false, "async": false])]
        case .discard:
            return [try ElementFactory.make("fakesink", name: EngineGraph.outputSink, properties: ["sync": true, "async": false])]
        }
    }

    /// A pulsesink's properties for a stream of ours on `device` (nil: the server's default) asking for
    /// `buffer` ahead of the device, refilled every 10 ms block; `naming` is one more stream property
    /// (`key=(string)value`). The sound server's role policies (cork, ducking) look at media.role.
    static func streamProperties(device: String?, buffer: ClockTime, mediaRole: String, naming: String) -> ElementProperties {
        var properties: ElementProperties = [
            "stream-properties": .string("props,media.role=\(mediaRole),application.name=classroom-audio,\(naming)"),
            "buffer-time": .int(buffer.microseconds), "latency-time": .int(EngineGraph.frameDuration.microseconds),
        ]
        if let device { properties.append("device", .string(device)) }
        return properties
    }

    /// True when the output is a sound-server stream whose device can be moved.
    public var isSoundServer: Bool { if case .soundServer = self { return true }; return false }
}
