import ClassroomEngine
import Dispatch
import Foundation
import Logging
import Synchronization
import Systemd

/// Tells systemd how the run goes (`Type=notify`): `READY=1` once the first audio reached the
/// output, `STATUS=` with the lesson and its position, `WATCHDOG=1` only while the output meter
/// advances — a wedged pipeline stops the pings and systemd restarts the service — and
/// `STOPPING=1`. Absent (nil) when the process has no `NOTIFY_SOCKET`.
final class SystemdNotifier: RunFollower {
    private struct State {
        var run: PlayerRun?
        var ready = false
        var windowsSinceTick = 0
        var timer: DispatchSourceToken?
        var warned = false
    }

    /// How often systemd wants `WATCHDOG=1` (`WatchdogSec=`), nil without a watchdog.
    let watchdog: Duration?
    private let logger: Logger
    private let state = Mutex(State())

    /// Status is refreshed this often when there is no watchdog to follow.
    static let statusInterval = Duration.seconds(5)

    /// Nil when systemd did not start the process with a notification socket.
    init?(logger: Logger) {
        guard ServiceManager.isNotifySocketSet else { return nil }
        watchdog = ServiceManager.watchdogInterval
        self.logger = logger
    }

    func runStarted(_ run: PlayerRun) {
        // Pinging at half the watchdog interval, as sd_watchdog_enabled(3) advises.
        let tick = watchdog.map { $0 / 2 } ?? Self.statusInterval
        let timer = DispatchSourceToken.repeating(every: tick, on: .global(qos: .utility)) { [weak self] in self?.tick() }
        state.withLock { $0.run = run; $0.timer = timer }
    }

    func outputAdvanced() {
        let becameReady = state.withLock { state -> Bool in
            guard state.run != nil else { return false }   // the output mixes silence before the lesson plays
            state.windowsSinceTick += 1
            defer { state.ready = true }
            return !state.ready
        }
        if becameReady { send("READY=1\nSTATUS=Playing: the first audio reached the output") }
    }

    func runStopping() {
        let timer = state.withLock { state -> DispatchSourceToken? in
            defer { state.timer = nil; state.run = nil }
            return state.timer
        }
        timer?.cancel()
        send("STOPPING=1\nSTATUS=Stopping")
    }

    /// Refreshes STATUS and, when the output meter advanced since the last tick, pings the watchdog.
    private func tick() {
        let (run, windows, ready) = state.withLock { state in
            defer { state.windowsSinceTick = 0 }
            return (state.run, state.windowsSinceTick, state.ready)
        }
        guard let run, ready else { return }
        var assignments: [String] = []
        if let fields = try? run.perform(.status, from: "systemd") { assignments.append("STATUS=\(Self.statusLine(fields))") }
        if watchdog != nil, windows > 0 { assignments.append("WATCHDOG=1") }
        if windows == 0, !assignments.isEmpty { assignments[0] += "; the output has not advanced since the last check" }
        if !assignments.isEmpty { send(assignments.joined(separator: "\n")) }
    }

    private func send(_ assignments: String) {
        do {
            try ServiceManager.notify(assignments)
        } catch {
            // Said once: a notification socket that fails keeps failing.
            let first = state.withLock { state -> Bool in defer { state.warned = true }; return !state.warned }
            if first { logger.warning("\(error.description)") }
        }
    }

    /// "Playing lesson.webm at 12.3 s of 60.0 s; output -20.5 dBFS; 1 alarm".
    static func statusLine(_ fields: [(String, JSON)]) -> String {
        let status = JSON.object(fields)
        let lesson = status["lesson"]
        var state = "loading"
        if case .string(let value)? = lesson?["state"] { state = value }
        var name = "the lesson"
        if case .string(let uri)? = lesson?["uri"] { name = URL(string: uri)?.lastPathComponent ?? uri }
        var line = "\(state.prefix(1).uppercased() + state.dropFirst()) \(name)"
        if case .number(let position)? = lesson?["position"] {
            line += String(format: " at %.1f s", position)
            if case .number(let duration)? = lesson?["duration"] { line += String(format: " of %.1f s", duration) }
        }
        if case .number(let output)? = status["levels"]?["output_db"] { line += "; output " + LevelMeter.Summary.format(output) }
        if case .array(let alarms)? = status["alarms"], !alarms.isEmpty { line += "; \(alarms.count) alarm" + (alarms.count == 1 ? "" : "s") }
        return line
    }
}
