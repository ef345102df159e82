import Foundation
import Synchronization

/// Where events and alarms go: JSON lines in `--events PATH`, or on standard error — or, when
/// standard error is the journal (under systemd), journal entries with structured fields; and
/// when standard error is a terminal, lines a person reads (HumanEventLine).
///
/// Every line is one object whose first fields are `"t"` (seconds since play started; 0 for
/// set-up events before it) and `"event"`. Lines are written whole, in order, as they happen.
final class EventLog: Sendable {
    private struct State {
        var file: FileHandle?
        var playStarted: ContinuousClock.Instant?
        var count = 0
        var alarms = 0
        var failedWrite = false
        var followers: [@Sendable (String, [(String, JSON)]) -> Void] = []
    }

    private let console: Console
    private let journal: JournalEventSink?
    private let state: Mutex<State>
    /// The file, when events do not go to standard error.
    let path: String?
    /// Whether events on standard error are written for a person (it is a terminal).
    private let forPeople: Bool

    /// Opens `path` (a file created or truncated, a device or FIFO as it is), or uses standard error when it is nil (the journal,
    /// through `journal`, when standard error is the journal).
    init(path: String?, console: Console, journal: JournalEventSink? = nil, stderrIsTerminal: Bool = Console.stderrIsTerminal) throws(PlayerError) {
        self.console = console
        self.journal = path == nil ? journal : nil
        self.path = path
        forPeople = path == nil && journal == nil && stderrIsTerminal
        var file: FileHandle?
        if let path {
            // Never renamed over: a device or FIFO is written through, a file truncated in place.
            let output = try OutputPath(path, role: "events file")
            if let note = output.note { console.err("classroom-player: the events file \(note)") }
            if output.isReplaced {
                do {
                    try FileManager.default.createDirectory(at: URL(fileURLWithPath: output.target).deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw .cannotWrite(role: "events file", path: path, reason: PlayerError.reason(error))
                }
                // Owner-only: events name the class's peers, rooms and devices.
                let descriptor = open(output.target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw .cannotWrite(role: "events file", path: path, reason: String(cString: strerror(errno))) }
                file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            } else {
                file = try output.openWriteThrough(role: "events file")
            }
        }
        state = Mutex(State(file: file))
    }

    /// From now on `t` counts from this moment.
    func markPlayStarted() { state.withLock { $0.playStarted = .now } }

    /// Seconds since play started (0 before).
    var elapsed: Double {
        state.withLock { state in
            guard let start = state.playStarted else { return 0 }
            let duration = ContinuousClock.now - start
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    /// Events written so far.
    var count: Int { state.withLock { $0.count } }

    /// Alarms raised so far.
    var alarmCount: Int { state.withLock { $0.alarms } }

    /// Also hands every event, as it is written, to `follower` (metrics count alarms this way).
    func follow(_ follower: @escaping @Sendable (_ name: String, _ fields: [(String, JSON)]) -> Void) {
        state.withLock { $0.followers.append(follower) }
    }

    /// Writes one event: `name` and its fields.
    func emit(_ name: String, _ fields: [(String, JSON)] = []) {
        let t = elapsed
        let line = JSON.object([("t", .number(t)), ("event", .string(name))] + fields).serialized
        let (file, followers) = state.withLock { state -> (FileHandle?, [@Sendable (String, [(String, JSON)]) -> Void]) in
            state.count += 1
            if name == "alarm" { state.alarms += 1 }
            return (state.file, state.followers)
        }
        for follower in followers { follower(name, fields) }
        guard let file else {
            // Standard error, unless the events file has been closed at the end.
            if path == nil {
                if let journal {
                    journal.write(name, fields, line: line)
                } else {
                    console.err(forPeople ? HumanEventLine.format(t: t, name: name, fields: fields) : line)
                }
            }
            return
        }
        state.withLock { state in
            do {
                try file.write(contentsOf: Data((line + "\n").utf8))
            } catch {
                if !state.failedWrite { console.err("warning: events can no longer be written to \(path ?? "?"): \(error)") }
                state.failedWrite = true
            }
        }
    }

    /// Closes the file.
    func close() {
        state.withLock { state in
            try? state.file?.close()
            state.file = nil
        }
    }
}
