import Foundation

/// Splits a byte stream into control lines the way both control channels read them: every line
/// is answered — an empty one too (`bad-request`), and the last one when the stream ends
/// without a newline — and a line longer than `maximumLine` is refused, not buffered.
struct ControlLines {
    /// What one complete line turned out to be.
    enum Line: Equatable {
        /// A line to execute (whitespace trimmed).
        case command(String)
        /// An empty or blank line.
        case empty
        /// A line that grew beyond the limit; the rest of it up to its newline is skipped.
        case tooLong
    }

    /// The longest line accepted, in bytes.
    static let maximumLine = 65_536

    private var pending: [UInt8] = []
    private var skipping = false

    /// Feeds bytes read; returns the lines they completed.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Line] {
        var lines: [Line] = []
        for byte in bytes {
            if byte == 10 {
                if skipping { skipping = false } else { lines.append(ControlLines.line(pending)) }
                pending.removeAll(keepingCapacity: true)
            } else if !skipping {
                pending.append(byte)
                if pending.count > ControlLines.maximumLine {
                    lines.append(.tooLong)
                    pending.removeAll()
                    skipping = true
                }
            }
        }
        return lines
    }

    /// The stream ended: the last line, when it had no newline.
    mutating func finish() -> Line? {
        defer { pending.removeAll(); skipping = false }
        return pending.isEmpty || skipping ? nil : ControlLines.line(pending)
    }

    private static func line(_ bytes: [UInt8]) -> Line {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? .empty : .command(text)
    }

    /// The answer to a line that is not a command.
    static func refusal(_ line: Line) -> String? {
        switch line {
        case .command: return nil
        case .empty: return CommandError(.badRequest, "an empty line; send one JSON object per line, e.g. {\"do\":\"status\"}").answer(id: nil).serialized
        case .tooLong: return CommandError(.badRequest, "a line longer than \(maximumLine) bytes; send one JSON object per line").answer(id: nil).serialized
        }
    }
}
