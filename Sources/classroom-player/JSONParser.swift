/// A strict JSON reader (RFC 8259) for control lines and timelines: keys in document order, a
/// key given twice refused (so `{"do":"pause","do":"stop"}` cannot mean either), numbers that
/// do not fit a Double refused as values out of range, nesting bounded.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Deeper nesting is refused: no command needs more than a few levels.
    static let maximumDepth = 32

    /// Parses one JSON text; a syntax error says where it is and ends with `hint` (what the text
    /// should look like: a control line and a timeline differ).
    static func parse(_ text: String, hint: String) throws(CommandError) -> JSON {
        var parser = JSONParser(bytes: Array(text.utf8), hint: hint)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.failure("more text after the JSON value") }
        return value
    }

    private let hint: String

    private init(bytes: [UInt8], hint: String) {
        self.bytes = bytes
        self.hint = hint
    }

    private func failure(_ what: String) -> CommandError {
        CommandError(.badRequest, "not valid JSON (\(what) at \(position)); \(hint)")
    }

    /// Where the parser stands: a byte on one line, a line and column in a file of several.
    private var position: String {
        let before = bytes[..<min(index, bytes.count)]
        guard bytes.contains(0x0A) else { return "byte \(index + 1)" }
        let line = before.count(where: { $0 == 0x0A }) + 1
        let column = before.count - ((before.lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)"
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSON) throws(CommandError) -> JSON {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else { throw failure("unexpected text") }
        index += expected.count
        return value
    }

    private mutating func value() throws(CommandError) -> JSON {
        switch current {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): return try number()
        case nil: throw failure("the text ends where a value should be")
        default: throw failure("unexpected character")
        }
    }

    private mutating func nested<T>(_ body: (inout JSONParser) throws(CommandError) -> T) throws(CommandError) -> T {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw failure("nested deeper than \(JSONParser.maximumDepth) levels") }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func object() throws(CommandError) -> JSON {
        try nested { (parser: inout JSONParser) throws(CommandError) -> JSON in
            parser.index += 1
            var fields: [(String, JSON)] = []
            var seen: Set<String> = []
            parser.skipSpace()
            if parser.current == UInt8(ascii: "}") { parser.index += 1; return .object(fields) }
            while true {
                parser.skipSpace()
                guard parser.current == UInt8(ascii: "\"") else { throw parser.failure("a key must be a string") }
                let key = try parser.string()
                guard seen.insert(key).inserted else {
                    throw CommandError(.badRequest, "the key \"\(key)\" appears twice in one object; send each field once")
                }
                parser.skipSpace()
                guard parser.current == UInt8(ascii: ":") else { throw parser.failure("':' expected after a key") }
                parser.index += 1
                parser.skipSpace()
                fields.append((key, try parser.value()))
                parser.skipSpace()
                switch parser.current {
                case UInt8(ascii: ","): parser.index += 1
                case UInt8(ascii: "}"): parser.index += 1; return .object(fields)
                default: throw parser.failure("',' or '}' expected")
                }
            }
        }
    }

    private mutating func array() throws(CommandError) -> JSON {
        try nested { (parser: inout JSONParser) throws(CommandError) -> JSON in
            parser.index += 1
            var values: [JSON] = []
            parser.skipSpace()
            if parser.current == UInt8(ascii: "]") { parser.index += 1; return .array(values) }
            while true {
                parser.skipSpace()
                values.append(try parser.value())
                parser.skipSpace()
                switch parser.current {
                case UInt8(ascii: ","): parser.index += 1
                case UInt8(ascii: "]"): parser.index += 1; return .array(values)
                default: throw parser.failure("',' or ']' expected")
                }
            }
        }
    }

    private mutating func number() throws(CommandError) -> JSON {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.index
            while let byte = parser.current, (0x30...0x39).contains(byte) { parser.index += 1 }
            return parser.index - from
        }
        let integer = digits(&self)
        guard integer > 0, !(integer > 1 && bytes[index - integer] == 0x30) else { throw failure("a malformed number") }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw failure("a malformed number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw failure("a malformed number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw CommandError(.badValue, "the number \(text) is out of range; no field takes a number that large")
        }
        return .number(value)
    }

    private mutating func string() throws(CommandError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush(&run, into: &scalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(&run, into: &scalars)
                guard let escaped = current else { break }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a lone UTF-16 surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("a lone UTF-16 surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("a lone UTF-16 surrogate") }
                    scalars.append(scalar)
                default:
                    throw failure("an unknown escape")
                }
            case 0x00..<0x20:
                throw failure("a control character inside a string")
            default:
                run.append(byte)
            }
        }
        throw failure("a string that does not end")
    }

    private mutating func hex4() throws(CommandError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = JSONParser.hexValue(byte) else { throw failure("a malformed \\u escape") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x41...0x46: return UInt32(byte - 0x41 + 10)
        case 0x61...0x66: return UInt32(byte - 0x61 + 10)
        default: return nil
        }
    }
}
