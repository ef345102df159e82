import ClassroomEngine
import GStreamer

/// What one echo run through the engine measured.
public struct EchoPathResult: Sendable {
    /// ERLE in dB over the far-end frames from the settle time on.
    public let erle: Double
    /// The lowest ERLE of any 500 ms window with far-end speech, from the first frame on (convergence included).
    public let minimumWindowERLE: Double
    /// Each 500 ms window's ERLE, in order.
    public let windowERLE: [Double]
    /// The echo path the engine settled on, if any.
    public let estimate: EchoPathEstimate?
    /// Seconds from the first microphone frame to the estimate being applied.
    public let estimateAfter: Double?
    /// Every frame's time from its capture timestamp to its uplink callback, shortest first.
    public let uplinkDelays: [ClockTime]
    /// Microphone buffers that never reached the DSP: output buffers missing from the tap, and pushes
    /// refused. The framing keeps capture times across them, but each is 10 ms of echo not cancelled.
    /// Nil when the microphone is a device (its losses are not seen here).
    public let lostMicrophoneBuffers: Int?
    /// How frames reached the DSP, for a pushed microphone; nil where it was not recorded (the room).
    public var framing: Framing? = nil

    /// The microphone's frames as the pacing handed them to the DSP.
    public struct Framing: Sendable {
        /// Each frame's time from its capture timestamp to reaching the DSP (the reference wait), shortest first.
        public let delays: [ClockTime]
        /// Frames handed on shorter or longer than 10 ms: the DSP would hold the rest for the next one.
        public let partialFrames: Int
        /// Output buffers pushed as microphone that were not 10 ms: each left the framer a remainder,
        /// which held every later frame back a frame while the pacing came before the framer (#21 item 6).
        public let partPushes: Int

        /// The typical frame's wait before the DSP.
        public var delayMedian: ClockTime { delays.median }
    }

    /// A run without far-end speech: nothing to cancel, nothing measured.
    static let silent = EchoPathResult(erle: 0, minimumWindowERLE: 0, windowERLE: [], estimate: nil, estimateAfter: nil, uplinkDelays: [], lostMicrophoneBuffers: 0)

    /// The longest uplink delay.
    public var maximumUplinkDelay: ClockTime { uplinkDelays.last ?? .zero }

    /// The uplink delay of the typical frame: a fixed wait shows here, a busy machine's late callbacks do not.
    public var uplinkDelayMedian: ClockTime { uplinkDelays.median }

    /// The uplink delay 99 % of frames stay within.
    public var uplinkDelay99: ClockTime {
        uplinkDelays.isEmpty ? .zero : uplinkDelays[min(uplinkDelays.count - 1, uplinkDelays.count * 99 / 100)]
    }
}

private extension [ClockTime] {
    /// The middle of a list sorted shortest first; zero when it is empty.
    var median: ClockTime { isEmpty ? .zero : self[count / 2] }
}
