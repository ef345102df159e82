import ClassroomEngine
import GStreamer
import Synchronization

/// What a sound-server device really played, recorded from its monitor (`MonitorListener`, the
/// engine's graph and clock untouched): where the listener is, after the server's own buffering,
/// resampling and moves. Mono S16 at 48 kHz, every block kept in arrival order.
public final class MonitorRecording: Sendable {
    /// The recording's rate.
    public static let rate = MonitorListener.format.rate
    private let listener: MonitorListener
    private let samples = Samples()

    /// The recorded samples, shared with the listener's streaming thread.
    private final class Samples: Sendable {
        let value = Mutex<[Int16]>([])
    }

    /// Starts recording `device`'s monitor.
    public init(device: String) throws(GStreamerError) {
        let samples = samples
        listener = try MonitorListener(device: device, name: "monitor-recording", bounded: false) { block in
            samples.value.withLock { $0 += block }
        }
    }

    /// Stops recording; the samples stay.
    public func stop() { listener.stop() }

    /// Everything recorded so far.
    public var recorded: [Int16] { samples.value.withLock { $0 } }
}
