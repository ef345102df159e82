import Foundation

/// The player's command line and environment as packaging/classroom-player.service builds them
/// from packaging/classroom-player.env, expanded the way systemd does: `${VAR}` is one word (an
/// empty setting stays an empty word), `$VAR` is split at whitespace (empty: no word at all), a
/// variable the settings file leaves out takes the unit's `Environment=` default, and the
/// specifiers %h, %t and %S are the folders given.
struct ShippedUnit {
    /// The arguments after the program.
    let arguments: [String]
    /// What the unit's `Environment=` lines set.
    let environment: [String: String]

    static let unitFile = Fixtures.root.appendingPathComponent("packaging/classroom-player.service")
    static let settingsFile = Fixtures.root.appendingPathComponent("packaging/classroom-player.env")

    /// The shipped settings with `overrides` applied, as the kiosk's settings file would hold them.
    static func settings(_ overrides: [String: String]) throws -> [String: String] {
        var settings: [String: String] = [:]
        for line in try String(contentsOf: settingsFile, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return settings.merging(overrides) { $1 }
    }

    init(settings: [String: String], home: URL, runtime: URL, state: URL) throws {
        let text = try String(contentsOf: Self.unitFile, encoding: .utf8).replacingOccurrences(of: "\\\n", with: " ")
        func specifiers(_ word: String) -> String {
            word.replacingOccurrences(of: "%h", with: home.path).replacingOccurrences(of: "%t", with: runtime.path)
                .replacingOccurrences(of: "%S", with: state.path)
        }
        var environment: [String: String] = [:]
        var execStart: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("Environment=") {
                let assignment = specifiers(String(line.dropFirst("Environment=".count)))
                guard let equals = assignment.firstIndex(of: "=") else { continue }
                environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
            } else if line.hasPrefix("ExecStart=") {
                execStart = line.dropFirst("ExecStart=".count).split(whereSeparator: \.isWhitespace).map(String.init)
            }
        }
        var arguments: [String] = []
        for word in execStart.dropFirst() {
            if word.hasPrefix("$"), !word.hasPrefix("${") {
                let name = String(word.dropFirst())
                arguments += (settings[name] ?? environment[name] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
                continue
            }
            var expanded = specifiers(word)
            while let open = expanded.range(of: "${"), let close = expanded[open.upperBound...].firstIndex(of: "}") {
                let name = String(expanded[open.upperBound..<close])
                expanded.replaceSubrange(open.lowerBound...close, with: settings[name] ?? environment[name] ?? "")
            }
            arguments.append(expanded)
        }
        self.arguments = arguments
        self.environment = environment
    }
}
