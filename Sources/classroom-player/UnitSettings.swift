import Foundation

/// The service's settings file (packaging/classroom-player.env), so that an error names the
/// variable an integrator edits there — `MIC=` — and not only the option the unit built from it.
/// The unit tells the player where that file is in `CLASSROOM_PLAYER_SETTINGS`.
struct UnitSettings {
    static let environmentKey = "CLASSROOM_PLAYER_SETTINGS"

    /// The option each variable becomes in the unit's ExecStart.
    static let variables: [(option: String, variable: String)] = [
        ("<lesson>", "LESSON"), ("--live", "LIVE_OPTIONS"), ("--room", "ROOM_OPTIONS"), ("--mic", "MIC"), ("--output", "OUTPUT"),
        ("--video", "VIDEO"), ("--metrics", "METRICS_OPTIONS"), ("--mic-on", "MIC_ON"), ("--after-lesson", "AFTER_LESSON"),
    ]

    /// The settings file.
    let file: String

    /// Nil outside the service.
    init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let file = environment[Self.environmentKey], !file.isEmpty else { return nil }
        self.file = file
    }

    /// "Under the service these come from MIC= in FILE." for the options a message names, or nil.
    func hint(for message: String) -> String? {
        let named = Self.variables.filter { Self.names(message, $0.option) }.map { "\($0.variable)=" }
        guard !named.isEmpty else { return nil }
        return "Under the service \(named.count == 1 ? "this comes" : "these come") from \(named.joined(separator: " and ")) in \(file)."
    }

    /// Whether `message` names `option` as a whole word: "--mic-on" does not name "--mic".
    static func names(_ message: String, _ option: String) -> Bool {
        var rest = message[...]
        while let found = rest.range(of: option) {
            let next = rest[found.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) ?? true { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }
}
