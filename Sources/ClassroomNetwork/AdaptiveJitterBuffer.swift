import ClassroomEngine
import Dispatch
import GStreamer
import Synchronization

/// Keeps an rtpjitterbuffer's latency where its stream's measured arrival jitter needs it
/// (`JitterBufferPolicy`), or fixed. Each change tells `onChange`: the feed re-anchors its engine
/// input there, so the class hears the new delay rather than the mix absorbing it.
final class AdaptiveJitterBuffer: Sendable {
    let setting: JitterBufferSetting
    private let element: Element
    private let clockRate: Int
    private let state: Mutex<(jitter: ArrivalJitter, policy: JitterBufferPolicy, evaluated: UInt64)>
    private let current: Atomic<UInt64>
    private let changes = Atomic<Int>(0)
    private let onChange: @Sendable (ClockTime) -> Void
    /// How often the need is worked out again.
    static let evaluation = ClockTime.milliseconds(250)
    /// Packets measured before the first decision (half a second of 20 ms packets).
    static let enough = 25

    /// `element` is the rtpjitterbuffer; its latency is set here at once.
    init(element: Element, setting: JitterBufferSetting, clockRate: Int, onChange: @escaping @Sendable (ClockTime) -> Void) throws(GStreamerError) {
        self.element = element
        self.setting = setting
        self.clockRate = clockRate
        self.onChange = onChange
        state = Mutex((ArrivalJitter(), JitterBufferPolicy(), 0))
        let initial: ClockTime
        if case .fixed(let delay) = setting { initial = delay } else { initial = JitterBufferPolicy.start }
        current = Atomic(initial.nanoseconds)
        try element.set("latency", .int(Int64(initial.milliseconds)))
    }

    /// The delay in force.
    var delay: ClockTime { ClockTime(nanoseconds: current.load(ordering: .relaxed)) }

    /// How many times an adaptive delay moved.
    var changeCount: Int { changes.load(ordering: .relaxed) }

    /// Measures every packet that reaches the jitter buffer (only the latched stream does); keep the probe. Nil when fixed.
    func watch() throws(GStreamerError) -> PadProbe? {
        guard setting == .adaptive else { return nil }
        return try element.staticPad("sink").addProbe(.buffer) { [weak self] info in
            if let self, let buffer = info.buffer, let header = RTPHeader(buffer.bytes()) { self.record(header) }
            return .ok
        }
    }

    private func record(_ header: RTPHeader) {
        let now = DispatchTime.now().uptimeNanoseconds
        let changed = state.withLock { state -> ClockTime? in
            state.jitter.record(arrival: now, ssrc: header.ssrc, sequence: header.sequence, timestamp: header.timestamp, clockRate: clockRate)
            guard state.jitter.count >= Self.enough, now - state.evaluated >= Self.evaluation.nanoseconds,
                  let packetTime = state.jitter.packetTime else { return nil }
            state.evaluated = now
            let need = JitterBufferPolicy.need(spread: state.jitter.spread(percentile: JitterBufferPolicy.percentile), packetTime: packetTime)
            return state.policy.update(need: need, now: now)
        }
        guard let changed else { return }
        current.store(changed.nanoseconds, ordering: .relaxed)
        changes.add(1, ordering: .relaxed)
        do {
            try element.set("latency", .int(Int64(changed.milliseconds)))
        } catch {
            return
        }
        onChange(changed)
    }
}
