/// Why a control command or a timeline step was refused: a stable code for programs and a
/// message for people that says what was wrong and what to send instead.
struct CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `error` field of a refusal.
    enum Code: String, Sendable, CaseIterable {
        /// The line is not a JSON object.
        case badRequest = "bad-request"
        /// `do` names no verb.
        case unknownVerb = "unknown-verb"
        /// A field the verb does not take (nothing sent is ignored).
        case unknownField = "unknown-field"
        /// A field the verb needs is missing.
        case missingField = "missing-field"
        /// A field has the wrong type or is out of range.
        case badValue = "bad-value"
        /// What the verb needs is not there (no microphone, no lease of that owner, the lesson ended).
        case unavailable
        /// The audio session refused the request (its reason is in the message).
        case sessionRefused = "session-refused"
        /// The engine or the lesson player failed to do it.
        case failed

        /// One line for the help text.
        var meaning: String {
            switch self {
            case .badRequest: return "the line is not one JSON object"
            case .unknownVerb: return "\"do\" names no verb"
            case .unknownField: return "a field the verb does not take (nothing is ignored)"
            case .missingField: return "a field the verb needs is missing"
            case .badValue: return "a field has the wrong type or is out of range"
            case .unavailable: return "what the verb needs is not there (no microphone, no such lease, lesson over)"
            case .sessionRefused: return "the audio session refused it; the message says why"
            case .failed: return "the engine or the lesson player could not do it"
            }
        }
    }

    /// The code.
    let code: Code
    /// What happened and what to do.
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code.rawValue): \(message)" }

    /// The answer line for this refusal.
    func answer(id: JSON?) -> JSON {
        var fields: [(String, JSON)] = [("ok", .bool(false)), ("error", .string(code.rawValue)), ("message", .string(message))]
        if let id { fields.append(("id", id)) }
        return .object(fields)
    }
}
