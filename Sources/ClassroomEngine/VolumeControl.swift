import GStreamer
import Synchronization

/// A `volume` element driven by a control source, so every change is a ramp evaluated per
/// sample on the streaming thread — never a step, never a plain property write racing it.
final class VolumeControl: Sendable {
    /// The volume element.
    let element: Element
    private let control: InterpolationControlSource
    private let binding: ControlBinding
    /// The last target, for callers that ask what the gain is heading to.
    private let target: Mutex<Double>

    init(name: String, initial: Double) throws(GStreamerError) {
        element = try ElementFactory.make("volume", name: name, properties: ["volume": .double(initial)])
        control = try InterpolationControlSource(mode: .linear)
        control.set(at: .zero, value: initial)
        binding = try element.bindAbsolute("volume", to: control)
        target = Mutex(initial)
    }

    /// The gain it is heading to (or holds).
    var targetGain: Double { target.withLock { $0 } }

    /// Ramps from the current gain to `gain` over `duration`, starting at the next buffer.
    ///
    /// Control points are in the stream time of the buffers at the element; after the live
    /// mixer that is running time, and the element's position is the last buffer it handled.
    func ramp(to gain: Double, over duration: ClockTime, now fallback: ClockTime?) {
        let start = element.position() ?? fallback ?? .zero
        let current = control.value(at: start) ?? targetGain
        control.unsetAll()
        // Buffers stamped before the ramp's start (the position can run ahead of the buffers
        // at start-up) must hold the current gain: before its first point a control source
        // has no value for them at all.
        control.set(at: .zero, value: current)
        control.set(at: start, value: current)
        control.set(at: start + max(duration, .milliseconds(1)), value: gain)
        target.withLock { $0 = gain }
    }

    /// Holds the target gain from stream time zero on: for a pipeline whose running time restarted.
    func hold() {
        let gain = targetGain
        control.unsetAll()
        control.set(at: .zero, value: gain)
    }

    /// The gain at stream time `time` as the control source has it.
    func gain(at time: ClockTime) -> Double? { control.value(at: time) }

    deinit { element.unbind(binding) }
}
