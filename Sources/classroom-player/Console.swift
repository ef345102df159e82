import Foundation
import Logging
import Synchronization

/// Standard output and standard error, written line by line from any thread, with the progress
/// line kept on the last line of a terminal: every other line clears it first and it is drawn
/// again on the next tick. When standard output is not a terminal there is no progress line at
/// all, so logs and pipes get only whole lines.
final class Console: Sendable {
    /// Whether the progress line is shown (standard output is a terminal).
    let showsProgress: Bool
    private let drawn = Mutex(false)

    init(showsProgress: Bool) { self.showsProgress = showsProgress }

    /// True when standard output is a terminal.
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// True when standard error is a terminal.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes a line to standard output.
    func out(_ line: String) { write(line, to: STDOUT_FILENO) }

    /// Writes a line to standard error.
    func err(_ line: String) { write(line, to: STDERR_FILENO) }

    /// Replaces the progress line (terminal only).
    func progress(_ text: String) {
        guard showsProgress else { return }
        drawn.withLock { drawn in
            Console.writeAll("\r\u{1B}[K" + text, to: STDOUT_FILENO)
            drawn = true
        }
    }

    /// Removes the progress line, leaving the cursor at the start of an empty line.
    func clearProgress() {
        drawn.withLock { drawn in
            if drawn { Console.writeAll("\r\u{1B}[K", to: STDOUT_FILENO) }
            drawn = false
        }
    }

    private func write(_ line: String, to descriptor: Int32) {
        drawn.withLock { drawn in
            if drawn { Console.writeAll("\r\u{1B}[K", to: STDOUT_FILENO) }
            drawn = false
            Console.writeAll(line + "\n", to: descriptor)
        }
    }

    /// write(2) until everything is out; a closed pipe (EPIPE, SIGPIPE ignored) drops the rest.
    static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// swift-log to standard error through the console, so log lines never break the progress line.
struct ConsoleLogHandler: LogHandler {
    let label: String
    let console: Console
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let details = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let error = event.error.map { " error=\($0)" } ?? ""
        console.err("\(event.level): \(event.message)\(details)\(error)")
    }
}
