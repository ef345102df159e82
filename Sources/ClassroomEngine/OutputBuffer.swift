import Dispatch
import GStreamer
import Synchronization

/// How much mixed audio waits in the sound server ahead of the device: pulsesink's buffer-time,
/// and the share of the pipeline latency that covers it.
public enum OutputBufferSetting: Sendable, Hashable, CustomStringConvertible {
    /// Starts small and grows a step at each underrun the device reports (`OutputBuffer`).
    case adaptive
    /// Always this size (`--output-buffer MS`); underruns are still reported.
    case fixed(ClockTime)

    /// The size the output opens with.
    public var initial: ClockTime {
        switch self {
        case .adaptive: OutputBuffer.start
        case .fixed(let size): size
        }
    }

    public var description: String {
        switch self {
        case .adaptive: "adaptive"
        case .fixed(let size): "\(size.milliseconds) ms"
        }
    }
}

/// The output buffer's size and how it moves: up one step at an underrun the device reports, never
/// down (the size that held is the floor). Underruns while the server settles a new stream don't
/// count: PulseAudio's idle null sink underflows 2-5 s after a stream starts at every size measured
/// (20-200 ms), and a reopened stream once as it fills.
///
/// The buffer must be the sink's buffer-time, not only pipeline latency: with pulsesink's default
/// 200 ms buffer-time and 40-60 ms of pipeline latency PulseAudio underflowed every 70 ms for as
/// long as it played (it reads that far ahead), with 20-40 ms never after the start.
public final class OutputBuffer: Sendable {
    /// Where an adaptive buffer starts: 30 ms, 50 ms of output latency with the mixer's 10 ms wait and
    /// one block. 20 ms does not hold on PulseAudio: a mic connect, a move to an idle null sink and a busy
    /// minute each underrun there, and every raise is heard (WORKAROUNDS §28).
    public static let start = ClockTime.milliseconds(30)
    /// How far one underrun raises it.
    public static let step = ClockTime.milliseconds(20)
    /// The most it grows to: a device this far behind needs another fix.
    public static let ceiling = ClockTime.milliseconds(200)
    /// Underruns this soon after the stream (re)opened are the server settling it.
    static let settlingAfterStart = ClockTime.seconds(6)
    static let settlingAfterRaise = ClockTime.seconds(1)
    /// Underflows this soon after one counted without a raise (a fixed buffer, or at the ceiling)
    /// are the same stall: the server underflows again as the stream refills (measured: 2 reports
    /// 11 ms apart for one 250 ms stall of the player at a fixed 60 ms buffer, 90 ms of latency).
    /// A raise coalesces them itself (`pending`, then `settlingAfterRaise`).
    static let sameStall = ClockTime.milliseconds(500)

    /// Fixed or adaptive.
    public let setting: OutputBufferSetting

    private struct State {
        var size: ClockTime
        var underruns = 0
        /// Until when (uptime ns) underruns do not count: the server settling the stream, or the same stall.
        var settlingUntil: UInt64 = 0
        /// A raise decided and not yet made (the sink reopens on its streaming thread).
        var pending: ClockTime?
    }
    private let state: Mutex<State>

    init(setting: OutputBufferSetting) {
        self.setting = setting
        state = Mutex(State(size: setting.initial))
    }

    /// The size in force.
    public var size: ClockTime { state.withLock { $0.size } }

    /// Underruns reported since the engine was made (settling ones not counted).
    public var underruns: Int { state.withLock { $0.underruns } }

    /// The engine (re)started the stream at `now`: underruns for a while are the server settling
    /// it, and a raise decided for the stream before is void (the teardown cancelled it).
    func opened(now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        state.withLock { state in
            state.settlingUntil = now + Self.settlingAfterStart.nanoseconds
            state.pending = nil
        }
    }

    /// The server began to play the stream in real time at `now`, which it settles from there:
    /// underruns for a while do not count. A raise on its way stays on its way.
    func settling(from now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        state.withLock { state in
            state.settlingUntil = max(state.settlingUntil, now + Self.settlingAfterStart.nanoseconds)
        }
    }

    /// The device underran at `now`. Nil when it does not count (the stream is settling, a raise
    /// is on its way, or it is the stall just counted); otherwise the size to go to, the same size
    /// when fixed or at the ceiling.
    func underrun(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> ClockTime? {
        state.withLock { state in
            guard now >= state.settlingUntil, state.pending == nil else { return nil }
            state.underruns += 1
            guard case .adaptive = setting, state.size < Self.ceiling else {
                state.settlingUntil = now + Self.sameStall.nanoseconds
                return state.size
            }
            let raised = min(Self.ceiling, state.size + Self.step)
            state.pending = raised
            return raised
        }
    }

    /// The raise was made (or, with `made` false, could not be: the stream was not playing).
    func raised(to size: ClockTime, made: Bool, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        state.withLock { state in
            state.pending = nil
            guard made else { return }
            state.size = max(state.size, size)
            state.settlingUntil = now + Self.settlingAfterRaise.nanoseconds
        }
    }
}
