import CSystemd
import Foundation

/// The journal's native protocol (sd-journal): one entry with structured fields.
public enum Journal {
    /// Syslog priorities, as journald's `PRIORITY` field takes them.
    public enum Priority: Int, Sendable, CaseIterable {
        case emergency = 0, alert, critical, error, warning, notice, info, debug
    }

    /// Whether standard error is connected to the journal: `JOURNAL_STREAM` names its device
    /// and inode, as systemd sets it for `StandardError=journal` (the default in a unit).
    public static var isStandardErrorJournal: Bool {
        guard let stream = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Writes one entry: `message`, `priority` and `fields` (uppercase names; values may hold
    /// newlines); wraps `sd_journal_sendv`.
    public static func send(_ message: String, priority: Priority, fields: [(String, String)]) throws(SystemdError) {
        for (name, _) in fields where !isValidFieldName(name) { throw .invalidFieldName(name) }
        let entries = [("MESSAGE", message), ("PRIORITY", String(priority.rawValue))] + fields
        // Every "NAME=value" in one buffer; the iovecs point into it for the duration of the call.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (name, value) in entries {
            let start = bytes.count
            bytes += Array("\(name)=\(value)".utf8)
            ranges.append(start..<bytes.count)
        }
        let result = bytes.withUnsafeMutableBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return -EINVAL }
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        if result < 0 { throw .journalSendFailed(errno: -result) }
    }

    /// Journald's rule for field names a client may set.
    public static func isValidFieldName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "_"), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), name.utf8.count <= 64 else {
            return false
        }
        return name.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") }
    }
}
