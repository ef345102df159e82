import Foundation

/// Control lines on standard input: one JSON command per line, each answered with one JSON line
/// on standard output — empty lines, over-long lines and a last line without a newline included.
/// End of input (no stdin, /dev/null under systemd) just ends the reading.
enum StdinControl {
    /// Reads on a thread of its own until end of input.
    static func start(console: Console, handler: @escaping @Sendable (String) -> String) {
        let thread = Thread {
            var lines = ControlLines()
            var chunk = [UInt8](repeating: 0, count: 4096)
            func answer(_ line: ControlLines.Line) {
                if case .command(let text) = line { console.out(handler(text)) } else if let refusal = ControlLines.refusal(line) { console.out(refusal) }
            }
            while true {
                let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for line in lines.feed(chunk[0..<count]) { answer(line) }
            }
            if let last = lines.finish() { answer(last) }
        }
        thread.name = "control-stdin"
        thread.start()
    }
}
