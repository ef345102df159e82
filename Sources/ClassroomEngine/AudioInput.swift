import Foundation
import GStreamer
import Synchronization

/// One source of audio mixed by the engine: the courseware, an RTC peer or the effects.
///
/// Data is pushed with `push(_:timestamp:)` exactly as an RTC SDK hands PCM over. The format
/// is declared when the input is added and checked on every push; the queue in front of the
/// mixer is bounded, and when it is full the oldest audio is dropped (keeping latency low) and
/// the push says so. A feed that stops never stalls the mix: the mixer is live and fills the
/// gap with silence.
public final class AudioInput: Sendable {
    /// What an input carries; decides ducking and alarms.
    public enum Kind: String, Sendable, Hashable {
        /// The lesson's audio (the mixed stream); ducked for effects.
        case courseware
        /// A remote participant; watched for interruptions (alarm 1025), never ducked.
        case rtc
        /// Sound effects and prompts; never ducked.
        case effects
    }

    /// How a push went.
    public enum PushResult: Sendable, Hashable {
        /// Queued for mixing.
        case queued
        /// Queued, but the queue was full and the oldest audio was dropped to make room.
        case queuedDroppingOldest
    }

    /// The input's id, e.g. "rtc-teacher".
    public let id: String
    /// What it carries.
    public let kind: Kind
    /// The declared format.
    public let format: AudioFormat

    let source: AppSource
    let clock: @Sendable () -> ClockTime?
    private let timeline: PushTimeline
    let elements: [Element]
    let mixerPad: Pad
    let duck: VolumeControl?
    /// The engine's real-time scheduling, which the pipelines pushing into this input share (nil: off).
    let realtime: RealtimeThreads?
    private let removed = Atomic<Bool>(false)
    /// When audio was last pushed into this input (alarm 1025 is about pushes that stop, not
    /// about a mixer held up by its output); a room that waits for its first audio sets it ahead.
    public let arrivals = ArrivalClock()
    private let dropped = Atomic<Int>(0)

    init(id: String, kind: Kind, format: AudioFormat, source: AppSource, elements: [Element], mixerPad: Pad, duck: VolumeControl?,
         jitterTolerance: ClockTime, burst: ClockTime, realtime: RealtimeThreads?, clock: @escaping @Sendable () -> ClockTime?) {
        timeline = PushTimeline(tolerance: jitterTolerance, burst: burst)
        self.id = id; self.kind = kind; self.format = format
        self.source = source; self.elements = elements; self.mixerPad = mixerPad; self.duck = duck
        self.realtime = realtime; self.clock = clock
    }

    /// Runs the streaming threads of `feeder`, a pipeline that pushes into this input (a peer's
    /// receiver), at the engine's real-time priority: the mixer waits only its latency for a push,
    /// so a feeder kept off the CPU by a busy kiosk is heard as a gap. `only` limits it to the
    /// tasks of those elements (a lesson's audio queue, not its video decoding), `where` to the
    /// tasks of the elements it takes by name. Call once, before the feeder starts (it takes the
    /// bus's one streaming-thread hook).
    public func scheduleFeeder(_ feeder: Pipeline, only owners: Set<String>? = nil) {
        scheduleFeeder(feeder) { owner in owners?.contains(owner) ?? true }
    }

    /// Runs the streaming threads of `feeder` whose element `feeds` takes (by name) at the engine's real-time priority.
    public func scheduleFeeder(_ feeder: Pipeline, where feeds: @escaping @Sendable (_ owner: String) -> Bool) {
        guard let realtime else { return }
        feeder.bus.onStreamingThreads { event in
            guard feeds(event.owner) else { return }
            realtime.handle(event)
        }
    }

    /// Pushes interleaved 16-bit samples. `timestamp` nil places them right after the previous
    /// push when they arrive within the mixer's wait and one block of where it ended (so arrival
    /// jitter never tears the audio), or at the engine's running time on arrival when the feed starts or has paused;
    /// otherwise `timestamp` is the running time at which they should be mixed.
    @discardableResult
    public func push(_ samples: [Int16], timestamp: ClockTime? = nil) throws(EngineError) -> PushResult {
        let (pts, moved) = try placed(samples: samples.count, at: timestamp)
        return try push { () throws(GStreamerError) in try source.push(samples, pts: pts, discontinuity: moved) }
    }

    /// Pushes interleaved 32-bit float samples; timestamps as for 16-bit samples.
    @discardableResult
    public func push(_ samples: [Float], timestamp: ClockTime? = nil) throws(EngineError) -> PushResult {
        let (pts, moved) = try placed(samples: samples.count, at: timestamp)
        return try push { () throws(GStreamerError) in try source.push(samples, pts: pts, discontinuity: moved) }
    }

    /// Where a push goes: its explicit timestamp (checked), or after the previous push; and
    /// whether the mixer must move the input there (the first stamped push after `reanchor`, or
    /// one re-anchored after a stall).
    private func placed(samples: Int, at timestamp: ClockTime?) throws(EngineError) -> (ClockTime?, Bool) {
        guard let timestamp else { return stamp(samples: samples) }
        return (try checked(timestamp, samples: samples), false)
    }

    /// An explicit timestamp, refused when it lies before audio already queued (beyond the
    /// jitter tolerance): the mixer would drop or overlap it, and the caller would never know.
    private func checked(_ pts: ClockTime, samples: Int) throws(EngineError) -> ClockTime {
        let duration = ClockTime.frames(samples / max(1, format.channels), rate: format.rate)
        if let overlap = timeline.place(pts, duration: duration) { throw .timestampWentBackwards(input: id, by: overlap) }
        return pts
    }

    /// A contiguous timestamp for a push of `samples` arriving now.
    private func stamp(samples: Int) -> (ClockTime?, Bool) {
        guard let now = clock(), format.channels > 0, samples % format.channels == 0 else { return (nil, false) }
        let anchored = timeline.anchor(now: now, duration: ClockTime.frames(samples / format.channels, rate: format.rate))
        return (anchored.pts, anchored.discont)
    }

    /// The input's own volume, 0…10 (the mixer pad's `volume`); independent of ducking and the master volume.
    public func setVolume(_ volume: Double) throws(EngineError) {
        try EngineError.wrap { () throws(GStreamerError) in try mixerPad.set("volume", volume) }
    }

    /// The input's own volume.
    public var volume: Double { (try? mixerPad.double("volume")) ?? 1 }

    /// How many times the feed arrived too far from where it left off and was re-anchored to the
    /// running time (a pause, or jitter beyond `pushTolerance`): each is a break in the mixed audio.
    public var timelineResyncs: Int { timeline.resyncCount }

    /// How late the pushes without a timestamp arrived after the place kept for them: what the
    /// mixer's wait has to cover for this feed.
    public var lateness: PushLateness { timeline.lateness }

    /// The next push (without a timestamp) is placed at its arrival: the source changed its own
    /// delay on purpose (an adaptive jitter buffer), and the mix follows instead of absorbing it.
    public func reanchor() { timeline.restart() }

    /// How far ahead of its arrival a push is placed (the source's own bursts): what is shown
    /// with this input's audio, a lesson's video, is delayed as much.
    public var placedAhead: ClockTime { timeline.burst }

    /// How many pushes dropped older audio because the queue was full.
    public var droppedPushes: Int { dropped.load(ordering: .relaxed) }

    /// Media time queued and not yet mixed (from the queued bytes).
    public var queuedTime: ClockTime { ClockTime.frames(source.queuedBytes / max(1, format.bytesPerFrame), rate: format.rate) }

    /// True once the input was removed from the engine.
    public var isRemoved: Bool { removed.load(ordering: .acquiring) }

    func markRemoved() {
        removed.store(true, ordering: .releasing)
    }

    private func push(_ body: () throws(GStreamerError) -> AppSource.PushOutcome) throws(EngineError) -> PushResult {
        guard !isRemoved else { throw .inputRemoved(id) }
        let outcome: AppSource.PushOutcome
        do {
            outcome = try body()
        } catch {
            switch error {
            case .flow(.wrongFormat(let why)): throw .wrongSamples(input: id, reason: why)
            case .flow(.flushing): throw .notRunning
            default: throw .gstreamer(error)
            }
        }
        arrivals.mark()
        switch outcome {
        case .queued:
            return .queued
        case .queuedDroppingOldest:
            dropped.add(1, ordering: .relaxed)
            return .queuedDroppingOldest
        case .dropped:
            // The engine configures drop-oldest, so this does not happen; if it did, it is said.
            dropped.add(1, ordering: .relaxed)
            throw .wrongSamples(input: id, reason: "the queue was full and the samples were dropped")
        }
    }
}

/// The monotonic time of the last buffer seen, written on a streaming thread.
public final class ArrivalClock: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)

    /// Records "now".
    public func mark() { nanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }

    /// Audio is due within `grace` from now (a room just joined): silence counts from then, so a
    /// feed that never delivers raises 1025 too, not only one that stopped.
    public func expect(within grace: ClockTime) {
        let due = DispatchTime.now().uptimeNanoseconds + grace.nanoseconds
        _ = nanoseconds.max(due, ordering: .relaxed)
    }

    /// Time since the last buffer; nil when none came yet.
    public func silence(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> ClockTime? {
        let last = nanoseconds.load(ordering: .relaxed)
        guard last > 0 else { return nil }
        return ClockTime(nanoseconds: now > last ? now - last : 0)
    }
}
