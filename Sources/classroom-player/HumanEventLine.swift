import Foundation

/// An event as a person at a terminal reads it: the time, the name, and the fields as words
/// ("  12.3 s  microphone: connected yes, source file mic.ogg"), an alarm led by its code. The
/// JSON lines stay for `--events`, pipes and the journal, where programs read them.
enum HumanEventLine {
    static func format(t: Double, name: String, fields: [(String, JSON)]) -> String {
        let time = String(format: "%7.1f s  ", t)
        let shown = fields.filter { $0.1 != .null }
        guard name == "alarm" else {
            return time + name + (shown.isEmpty ? "" : ": " + words(shown))
        }
        let event = JSON.object(fields)
        var head = "ALARM"
        if case .string(let code)? = event["code"] { head += " \(code)" }
        if case .number(let number)? = event["number"] { head += " (\(Int(number)))" }
        let message: String
        if case .string(let text)? = event["message"] { message = text } else { message = "" }
        let rest = shown.filter { !["code", "number", "message", "call_site"].contains($0.0) && $0.1 != .object([]) }
        return time + head + ": " + message + (rest.isEmpty ? "" : " (\(words(rest)))")
    }

    private static func words(_ fields: [(String, JSON)]) -> String {
        fields.map { "\($0.0.replacingOccurrences(of: "_", with: " ")) \(text($0.1))" }.joined(separator: ", ")
    }

    private static func text(_ value: JSON) -> String {
        switch value {
        case .null: return "-"
        case .bool(let flag): return flag ? "yes" : "no"
        case .number(let number):
            if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            var digits = String(format: "%.3f", number)
            while digits.hasSuffix("0") { digits.removeLast() }
            return digits
        case .string(let string): return string.isEmpty ? "\"\"" : string
        case .array(let items): return "[" + items.map(text).joined(separator: ", ") + "]"
        case .object(let fields): return "{" + words(fields.filter { $0.1 != .null }) + "}"
        }
    }
}
