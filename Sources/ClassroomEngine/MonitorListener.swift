import GStreamer

/// A sound-server device's monitor — what the server really plays there — listened to in a
/// pipeline of its own, so the engine's graph, clock and latency are untouched. Hands over mono
/// S16 at 48 kHz block by block on the streaming thread. The output witness (1032) and the
/// measurements' monitor recordings both listen through it.
public final class MonitorListener: Sendable {
    /// The format of the blocks handed over.
    public static let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
    private let pipeline: Pipeline
    private let samples: SignalHandler
    private let errors: BusSubscription

    /// Starts listening to `device`'s monitor; element names begin with `name`. `bounded` keeps at
    /// most 10 blocks when the handler falls behind (dropping the oldest), else every block is kept.
    /// `role`, when given, is the stream's `media.role` for the server's policies.
    public init(device: String, name: String, bounded: Bool, role: String? = nil, onSamples: @escaping @Sendable ([Int16]) -> Void,
                onError: @escaping @Sendable (String) -> Void = { _ in }) throws(GStreamerError) {
        pipeline = try Pipeline(name: name)
        let source = try ElementFactory.make("pulsesrc", name: EngineGraph.Monitor.source(name), properties: ["device": .string("\(device).monitor")])
        if let role {
            try source.set("stream-properties", .string("props,media.role=\(role),application.name=classroom-audio"))
        }
        let format = try ElementFactory.make("capsfilter", name: EngineGraph.Monitor.format(name), properties: ["caps": .caps(Self.format.caps)])
        let sink = try AppSink.make(name: EngineGraph.Monitor.sink(name))
        try sink.configure(caps: nil, maxBuffers: bounded ? 10 : 0, drop: bounded, sync: false)
        try pipeline.addLinked([source, try ElementFactory.make("audioconvert", name: EngineGraph.Monitor.convert(name)),
                                try ElementFactory.make("audioresample", name: EngineGraph.Monitor.resample(name)), format, sink])
        samples = try sink.onNewSample { sample in
            if let block = sample.buffer?.int16Samples() { onSamples(block) }
        }
        errors = pipeline.bus.subscribe { message in
            if case .error(let error, _) = message.view { onError(error.message) }
        }
        do {
            try pipeline.setState(.playing)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Stops listening.
    public func stop() {
        _ = try? pipeline.setState(.null)
        samples.disconnect()
        errors.cancel()
    }
}
