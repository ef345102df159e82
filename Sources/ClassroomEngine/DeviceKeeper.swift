import Foundation
import GStreamer
import Synchronization

/// A silent stream on the output's device while the engine reopens its own stream, so the server
/// never sees the device idle in between: a PulseAudio sink left without streams falls back to its
/// idle latency (2 s on a null sink) and holds the next stream that long. Measured with
/// `scripts/measure/null-sink-hold.sh §28c`: a reopen alone stalled the sink 1.8 s; with another
/// stream on the device, 40–53 ms, as on PipeWire (WORKAROUNDS §28).
final class DeviceKeeper: Sendable {
    private let pipeline: Pipeline
    private let rendered = Atomic<Int>(0)
    private let counter: Mutex<PadProbe?> = Mutex(nil)

    /// Plays silence on `device` (nil: the server's default) with `buffer` ahead of it, so its
    /// latency request is no smaller than the stream it stands in for. `mediaRole` is that stream's,
    /// so the server's role policies see no new kind of stream.
    init(device: String?, buffer: ClockTime, mediaRole: String) throws(GStreamerError) {
        pipeline = try Pipeline(name: "output-keeper")
        let properties = OutputTarget.streamProperties(device: device, buffer: buffer, mediaRole: mediaRole,
                                                       naming: "media.name=(string)classroom-audio-keeper")
        let sink = try ElementFactory.make("pulsesink", name: "output-keeper-sink", properties: properties)
        try pipeline.addLinked([
            try ElementFactory.make("audiotestsrc", properties: ["is-live": true, "wave": .string("silence"),
                                                                  "samplesperbuffer": .int(Int64(EngineGraph.outputFormat.rate / 100))]),
            try ElementFactory.make("capsfilter", properties: ["caps": .caps(EngineGraph.outputFormat.caps)]),
            sink,
        ])
        let probe = try? sink.staticPad("sink").addProbe(.buffer) { [weak self] _ in
            self?.rendered.add(1, ordering: .relaxed)
            return .ok
        }
        counter.withLock { $0 = probe }
    }

    /// Starts it and waits until the server takes its buffers (two rendered), at most `timeout`.
    /// False when it did not play in time; it is stopped then.
    func start(within timeout: Duration) -> Bool {
        do {
            try pipeline.setState(.playing)
        } catch {
            stop()
            return false
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if rendered.load(ordering: .relaxed) >= 2 { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        stop()
        return false
    }

    /// Takes its stream away.
    func stop() {
        _ = try? pipeline.setState(.null)
        counter.withLock { $0 = nil }
    }

    /// Its stream never outlives it, whoever let it go last.
    deinit { stop() }
}
