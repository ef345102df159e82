import Dispatch
import GStreamer
import Synchronization

/// The output stream's life, held in one value: closed → connecting → up ⇄ corked, and on a
/// failure lost(server | device) → recovering → up. The engine moves it as the sink starts,
/// renders and stops; the controller (on its queue) as the server corks, devices go and recovery
/// runs. Everything that may touch pulsesink asks it first (docs/GSTREAMER-WORKAROUNDS.md §1–3, §6).
final class OutputLink: Sendable {
    /// What took the output away.
    enum Loss: Sendable, Hashable {
        /// The sound server died or refused us: media services are lost until it answers again.
        case server
        /// The last output device went away: an interruption until a device comes back.
        case device
    }

    /// Where the stream is in its life.
    enum Phase: Sendable, Hashable {
        /// Not playing (before start, after stop or suspend).
        case closed
        /// Started: the server stream exists once the sink has rendered two buffers.
        case connecting(rendered: Int)
        /// The server stream plays.
        case up
        /// The server corked (and muted) the stream; it still exists and still renders.
        case corked
        /// The sink reported an error the controller has not judged yet: its server stream may be gone.
        case failed
        /// Lost since `since` (uptime ns); recovery was last tried at `lastAttempt` (uptime ns).
        case lost(Loss, since: UInt64, lastAttempt: UInt64)
        /// Restarted after a loss that began at `since`: up once the sink has rendered two buffers.
        case recovering(Loss, since: UInt64, rendered: Int)
    }

    private struct State {
        var phase = Phase.closed
        /// While the sink is taken down, upstream queries fail at its pad instead of reaching it:
        /// the mixer's renegotiation reaching a pulsesink on its way to NULL crashed the process.
        var sinkClosing = false
        /// From a restart until its marker comes through the bus: errors of the dead stream still
        /// on their way must not count as a new loss.
        var discardingStaleErrors = false
        /// The running time of the newest buffer handed to the sink since the pipeline last started.
        var newestBuffer: ClockTime?
    }

    private let state = Mutex(State())
    /// Held by whatever touches the server stream through pulsesink (queries, a reopen, taking it down).
    private let access = Mutex(())
    private let probes = Mutex<[PadProbe]>([])

    /// Watches `sink`'s pad; with `answersCaps` it also answers caps queries for a sound-server sink.
    init(sink: Element, answersCaps: Bool, caps: Caps) {
        guard let pad = try? sink.staticPad("sink") else { return }
        let guardProbe = pad.addProbe([.queryDownstream, .queryUpstream]) { [weak self] info in
            // pulsesink would answer through a main loop a killed stream can leave dead (WORKAROUNDS §2).
            if answersCaps, let query = info.query {
                if query.isCaps { query.answerCaps(caps); return .handled }
                if query.isAcceptCaps { query.answerAcceptCaps(true); return .handled }
            }
            // A dropped query fails (returns FALSE) without reaching a sink being taken down.
            return self?.state.withLock { $0.sinkClosing } == true ? .drop : .ok
        }
        let counter = pad.addProbe(.buffer) { [weak self] info in
            self?.rendered(info.buffer?.pts)
            return .ok
        }
        probes.withLock { $0 = [guardProbe, counter].compactMap { $0 } }
    }

    /// The running time of the newest buffer handed to the sink since the last (re)start.
    var newestBuffer: ClockTime? { state.withLock { $0.newestBuffer } }

    /// The phase now.
    var phase: Phase { state.withLock { $0.phase } }

    /// True when the server stream exists and has not failed: pulsesink may be asked and moved.
    var streamIsUp: Bool {
        switch phase {
        case .up, .corked: true
        default: false
        }
    }

    /// True from a loss until the engine restarted.
    var isLost: Bool {
        if case .lost = phase { return true }
        return false
    }

    /// True while the server holds the stream corked.
    var isCorked: Bool { phase == .corked }

    /// True when the stream plays and nothing is taking the sink down or reopening it: a reopen may start.
    var mayReopen: Bool { state.withLock { Self.mayReopen($0) } }

    private static func mayReopen(_ state: State) -> Bool { state.phase == .up && !state.sinkClosing }

    // MARK: Driven by the engine

    /// The pipeline is on its way up (start or restart): a lost stream is now recovering.
    func starting() {
        state.withLock { state in
            state.sinkClosing = false
            state.newestBuffer = nil
            if case .lost(let loss, let since, _) = state.phase {
                state.phase = .recovering(loss, since: since, rendered: 0)
            } else {
                state.phase = .connecting(rendered: 0)
            }
        }
    }

    /// The sink is being taken down: queries stop reaching it until it reopens. With
    /// `discardingErrors` (a suspend, to be restarted) its errors no longer count until the marker.
    func closing(discardingErrors: Bool) {
        state.withLock { state in
            state.sinkClosing = true
            if discardingErrors { state.discardingStaleErrors = true }
        }
    }

    /// The sink is down (or failed to come up). A loss stays a loss: the engine suspends on a lost
    /// device, and a failed restart leaves it lost. With `reopening`, queries reach the sink again.
    func closed(reopening: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            if reopening { state.sinkClosing = false }
            switch state.phase {
            case .lost: break
            case .recovering(let loss, let since, _): state.phase = .lost(loss, since: since, lastAttempt: now)
            default: state.phase = .closed
            }
        }
    }

    /// Runs `body` on the server stream while it is up, and never during a reopen: pulsesink 1.22
    /// asked for `mute` or `current-device` on a stream being closed returns with its main loop
    /// locked (WORKAROUNDS §1), and a reopen closes the stream. Nil when the stream is not up.
    func whileStreamIsUp<T>(_ body: () -> T) -> T? {
        access.withLock { _ in streamIsUp ? body() : nil }
    }

    /// Reopens the sink (with a larger buffer) by `body`, on the streaming thread with upstream
    /// blocked: only a stream that plays, and not while the engine takes it down. The stream counts
    /// as connecting from here (no query reaches it) until it renders again. Returns what `body`
    /// did, false when it was not run.
    func reopen(_ body: () -> Bool) -> Bool {
        access.withLock { _ in
            let mayReopen = state.withLock { state -> Bool in
                guard Self.mayReopen(state) else { return false }
                state.phase = .connecting(rendered: 0)
                state.sinkClosing = true
                return true
            }
            guard mayReopen else { return false }
            let done = body()
            starting()
            return done
        }
    }

    /// Runs `body`, which takes the sink down, once a reopen in progress has finished.
    func takingDown(_ body: () -> Void) {
        access.withLock { _ in body() }
    }

    /// The restart's marker came through the bus: errors from now on are the new stream's.
    func staleErrorsPassed() {
        state.withLock { $0.discardingStaleErrors = false }
    }

    /// The sink reported an error. Returns false when it belongs to a stream already restarted.
    func sinkFailed() -> Bool {
        state.withLock { state in
            guard !state.discardingStaleErrors else { return false }
            switch state.phase {
            case .lost, .closed: break
            default: state.phase = .failed
            }
            return true
        }
    }

    /// A buffer reached the sink (streaming thread).
    private func rendered(_ pts: ClockTime?) {
        state.withLock { state in
            state.newestBuffer = pts ?? state.newestBuffer
            switch state.phase {
            case .connecting(let count): state.phase = count + 1 >= 2 ? .up : .connecting(rendered: count + 1)
            case .recovering(let loss, let since, let count):
                state.phase = count + 1 >= 2 ? .up : .recovering(loss, since: since, rendered: count + 1)
            default: break
            }
        }
    }

    // MARK: Driven by the controller, on its queue

    /// The server corked the stream. Returns whether that is news.
    func cork() -> Bool {
        state.withLock { state in
            switch state.phase {
            case .up, .connecting, .recovering:
                state.phase = .corked
                return true
            default:
                return false
            }
        }
    }

    /// The server gave the stream back. Returns whether it was corked.
    func uncork() -> Bool {
        state.withLock { state in
            guard state.phase == .corked else { return false }
            state.phase = .up
            return true
        }
    }

    /// The output is lost. Returns false when it already was.
    func lose(_ loss: Loss) -> Bool {
        state.withLock { state in
            if case .lost = state.phase { return false }
            state.phase = .lost(loss, since: DispatchTime.now().uptimeNanoseconds, lastAttempt: 0)
            return true
        }
    }

    /// A recovery attempt, at most every `interval` while lost: what was lost and since when.
    func recoveryAttempt(every interval: UInt64) -> (loss: Loss, since: UInt64)? {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard case .lost(let loss, let since, let last) = state.phase, now - last >= interval else { return nil }
            state.phase = .lost(loss, since: since, lastAttempt: now)
            return (loss, since)
        }
    }
}
