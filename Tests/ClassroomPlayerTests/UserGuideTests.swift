import Foundation
import Testing

/// docs/USER-GUIDE.md against the player itself: every option `--help` lists, every event it
/// writes, every control verb, settings variable, metric and exit status is in the guide.
@Suite("The user guide names everything the player has")
struct UserGuideTests {
    private static let guide = (try? String(contentsOf: Fixtures.root.appendingPathComponent("docs/USER-GUIDE.md"), encoding: .utf8)) ?? ""

    private static func help(_ arguments: [String]) throws -> String { try Fixtures.output(of: PlayerProcess.executable.path, arguments) }

    private static func source(_ name: String) throws -> String {
        try String(contentsOf: Fixtures.root.appendingPathComponent("Sources/classroom-player/\(name)"), encoding: .utf8)
    }

    private static func matches(_ pattern: String, in text: String, group: Int = 1) -> Set<String> {
        let expression = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return Set(expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: group), in: text).map { String(text[$0]) }
        })
    }

    private static func missing(_ names: Set<String>, as form: (String) -> String = { "`\($0)`" }) -> [String] {
        names.filter { !guide.contains(form($0)) }.sorted()
    }

    @Test("every option of play, devices, probe and control")
    func options() throws {
        var options: Set<String> = []
        for command in ["play", "devices", "probe", "control"] {
            options.formUnion(Self.matches(#"^\s+(--[a-z][a-z-]*)"#, in: try Self.help(["help", command])))
        }
        options.subtract(["--help", "--version"])
        #expect(options.count > 20, "\(options)")
        #expect(Self.missing(options, as: { $0 }).isEmpty, "options the guide does not name: \(Self.missing(options, as: { $0 }))")
    }

    @Test("every event the player writes, and every control verb")
    func eventsAndVerbs() throws {
        var events: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: Fixtures.root.appendingPathComponent("Sources/classroom-player").path) where file.hasSuffix(".swift") {
            let text = try Self.source(file)
            events.formUnion(Self.matches(#"emit\("([a-z-]+)""#, in: text))
            if file == "SessionEvent+JSON.swift" { events.formUnion(Self.matches(#"return \("([a-z-]+)""#, in: text)) }
        }
        #expect(events.count > 40, "\(events.sorted())")
        #expect(Self.missing(events).isEmpty, "events the guide does not name: \(Self.missing(events))")
        let verbs = Self.matches(#"Verb\(name: "([a-z]+)""#, in: try Self.source("Command.swift"))
        #expect(verbs.count > 10)
        #expect(Self.missing(verbs).isEmpty, "verbs the guide does not name: \(Self.missing(verbs))")
    }

    @Test("every settings variable of the service, every metric and every exit status")
    func settingsMetricsAndExits() throws {
        let settings = try String(contentsOf: Fixtures.root.appendingPathComponent("packaging/classroom-player.env"), encoding: .utf8)
        let variables = Self.matches(#"^([A-Z_]+)="#, in: settings)
        #expect(variables.contains("MIC_ON") && variables.contains("AFTER_LESSON"))
        #expect(Self.missing(variables).isEmpty, "settings the guide does not name: \(Self.missing(variables))")
        let exporter = try Self.source("MetricsExporter.swift")
        let metrics = Self.matches(#"(?:set|gauge|counter)\("([a-z_]+)""#, in: exporter).union(Self.matches(#"metricName: "([a-z_]+)""#, in: exporter))
        #expect(metrics.count > 15, "\(metrics.sorted())")
        #expect(Self.missing(metrics, as: { "classroom_\($0)" }).isEmpty, "metrics the guide does not name: \(Self.missing(metrics, as: { "classroom_\($0)" }))")
        let statuses = Self.matches(#"^  ([0-9]+) "#, in: try Self.help(["--help"]))
        #expect(statuses.count >= 7, "\(statuses)")
        // The guide's table of exit statuses: "| 64 | …".
        #expect(Self.missing(statuses, as: { "| \($0) |" }).isEmpty, "exit statuses the guide does not name: \(Self.missing(statuses, as: { "| \($0) |" }))")
    }
}
