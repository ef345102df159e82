import GStreamer
import Synchronization

/// What a sound-server device really played, recorded from its monitor in a pipeline of its own
/// (the engine's graph and clock untouched): where the listener is, after the server's own
/// buffering, resampling and moves. Mono S16 at 48 kHz, kept in arrival order.
public final class MonitorRecording: Sendable {
    /// The recording's rate.
    public static let rate = 48_000
    private let pipeline: Pipeline
    private let handler: SignalHandler
    private let samples = Samples()

    /// The recorded samples, shared with the appsink's streaming thread.
    private final class Samples: Sendable {
        let value = Mutex<[Int16]>([])
    }

    /// Starts recording `device`'s monitor.
    public init(device: String) throws(GStreamerError) {
        pipeline = try Pipeline(name: "monitor-recording")
        let source = try ElementFactory.make("pulsesrc", name: "monitor-recording-src",
                                             properties: ["device": .string("\(device).monitor")])
        let format = try ElementFactory.make("capsfilter", name: "monitor-recording-format",
                                             properties: ["caps": .caps(AudioFormat(format: .s16, rate: Self.rate, channels: 1).caps)])
        let sink = try AppSink.make(name: "monitor-recording-sink")
        try sink.configure(caps: nil, maxBuffers: 0, drop: false, sync: false)
        try pipeline.addLinked([source, try ElementFactory.make("audioconvert", name: "monitor-recording-convert"),
                                try ElementFactory.make("audioresample", name: "monitor-recording-resample"), format, sink])
        let samples = samples
        handler = try sink.onNewSample { sample in
            guard let block = sample.buffer?.int16Samples() else { return }
            samples.value.withLock { $0 += block }
        }
        try pipeline.setState(.playing)
    }

    deinit { stop() }

    /// Stops recording; the samples stay.
    public func stop() {
        _ = try? pipeline.setState(.null)
        handler.disconnect()
    }

    /// Everything recorded so far.
    public var recorded: [Int16] { samples.value.withLock { $0 } }

    /// Seconds recorded so far.
    public var seconds: Double { Double(samples.value.withLock { $0.count }) / Double(Self.rate) }
}
