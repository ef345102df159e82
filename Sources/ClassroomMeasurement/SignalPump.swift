import ClassroomEngine
import GStreamer

/// Pumps a test signal from its own small pipeline into the engine, in real time — exactly how
/// the lesson player or an RTC SDK hands PCM over.
public final class SignalPump: Sendable {
    private let pipeline: Pipeline
    private let token: SignalHandler
    /// Pushes accepted so far.
    public let pushed = Counter()

    /// `description` is a gst-launch source chain ending in raw audio; it is converted to
    /// `format`, and each buffer's samples are handed to `deliver`, which says whether they were taken.
    /// `feeding`, the input `deliver` pushes into, runs the pump's threads at the engine's priority, as a peer's receiver does.
    public init(_ description: String, format: AudioFormat, feeding input: AudioInput? = nil, deliver: @escaping @Sendable ([Int16]) -> Bool) throws(GStreamerError) {
        // A live source paces itself; anything else is paced by the appsink.
        let sync = description.contains("is-live=true") ? "false" : "true"
        pipeline = try Pipeline.parse("\(description) ! audioconvert ! audioresample ! \(format.caps) ! appsink name=pump-out sync=\(sync)")
        input?.scheduleFeeder(pipeline)
        let sink = try pipeline.element(named: "pump-out", as: AppSink.self)
        let pushed = self.pushed
        token = try sink.onNewSample { sample in
            guard let samples = sample.buffer?.int16Samples() else { return }
            if deliver(samples) { pushed.increment() }
        }
        try pipeline.setState(.playing)
    }

    /// Pumps into an engine input; its own timestamps (contiguous, anchored on arrival).
    public convenience init(_ description: String, into input: AudioInput, format: AudioFormat) throws(GStreamerError) {
        try self.init(description, format: format, feeding: input) { samples in (try? input.push(samples)) != nil }
    }

    /// Stops the source.
    public func stop() { _ = try? pipeline.setState(.null); token.disconnect() }

    /// True once the source has ended (files).
    public var finished: Bool {
        (try? pipeline.element(named: "pump-out", as: AppSink.self))?.isEndOfStream == true
    }

    deinit { stop() }
}
