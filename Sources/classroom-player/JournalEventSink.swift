import Foundation
import Synchronization
import Systemd

/// Under systemd (standard error is the journal: `JOURNAL_STREAM`), events and alarms go to the
/// journal as entries with structured fields instead of JSON lines on standard error:
/// `MESSAGE` (the same JSON line), `MESSAGE_ID` (fixed per event kind, and per alarm code),
/// `CLASSROOM_EVENT`, `PRIORITY`, and for alarms `ALARM_CODE`, `ALARM_NUMBER`, `ALARM_OWNER`.
///
/// `journalctl --user -u classroom-player ALARM_NUMBER=1025` then finds every 1025.
final class JournalEventSink: Sendable {
    private let failed = Atomic<Bool>(false)
    private let console: Console

    /// Nil when standard error is not the journal.
    init?(console: Console) {
        guard Journal.isStandardErrorJournal else { return nil }
        self.console = console
    }

    /// Writes one event; `line` is its JSON line, written to standard error instead if the journal refuses.
    func write(_ name: String, _ fields: [(String, JSON)], line: String) {
        let event = JSON.object(fields)
        var entry: [(String, String)] = [("CLASSROOM_EVENT", name), ("SYSLOG_IDENTIFIER", "classroom-player")]
        var kind = "event:\(name)"
        if name == "alarm" {
            var code = "unknown"
            if case .string(let raw)? = event["code"] { code = raw; entry.append(("ALARM_CODE", raw)) }
            if case .number(let number)? = event["number"] { entry.append(("ALARM_NUMBER", String(Int(number)))) }
            if case .string(let owner)? = event["owner"] { entry.append(("ALARM_OWNER", owner)) }
            kind = "alarm:\(code)"
        }
        entry.append(("MESSAGE_ID", Self.messageID(kind)))
        do {
            try Journal.send(line, priority: Self.priority(of: name), fields: entry)
        } catch {
            // The journal went away: the line still goes out on standard error, as without systemd.
            if !failed.exchange(true, ordering: .relaxed) { console.err("warning: \(error.description); events go to standard error from now on") }
            console.err(line)
        }
    }

    /// Alarms are warnings, failures errors, start and stop notices, the rest information.
    static func priority(of name: String) -> Journal.Priority {
        switch name {
        case "alarm", "output-lost", "media-services-lost", "snapshot-failed", "live-rejected", "room-lost", "room-silent", "room-warning": return .warning
        case "lesson-failed", "engine-error", "live-failed", "room-refused": return .error
        case "started", "stopped", "stop-requested": return .notice
        default: return .info
        }
    }

    /// A 128-bit id in journald's form (32 lowercase hex digits), the same for every entry of a
    /// kind in every run and release: two 64-bit FNV-1a hashes of the kind's name.
    static func messageID(_ kind: String) -> String {
        func fnv(_ basis: UInt64) -> UInt64 {
            var hash = basis
            for byte in "classroom-player/\(kind)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            return hash
        }
        let high = fnv(0xcbf29ce484222325), low = fnv(0x84222325cbf29ce4)
        return String(format: "%016llx%016llx", high, low)
    }
}
