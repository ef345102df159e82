import Foundation

/// Control lines on standard input: one JSON command per line, each answered with one JSON line
/// on standard output. End of input (no stdin, /dev/null under systemd) just ends the reading.
enum StdinControl {
    /// Reads lines on a thread of its own until end of input.
    static func start(console: Console, handler: @escaping @Sendable (String) -> String) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                console.out(handler(trimmed))
            }
        }
        thread.name = "control-stdin"
        thread.start()
    }
}
