import Foundation
import GStreamer

/// The room rows on a second platform in the same run (#24 item 4): this bench, built there, runs the
/// same `--only` rows under `--beside`'s command (scripts/debian13.sh run …, which shares this tree)
/// and writes them as JSON; the report puts both platforms' figures side by side in one table.
struct PlatformComparison {
    /// This platform's rows and the other's, with each platform's name.
    let here: [BenchmarkRow], there: [BenchmarkRow]
    let hereName: String, thereName: String

    /// Runs `only` on the other platform: `command` (split on spaces) + `run --only <only> --json <file>`.
    static func rowsThere(command: String, only: String) async throws -> (rows: [BenchmarkRow], platform: String) {
        let file = "out/beside-\(only)-\(getpid()).json"
        try FileManager.default.createDirectory(atPath: "out", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let words = command.split(separator: " ").map(String.init)
        guard let executable = words.first else { throw BenchError("--beside is empty") }
        let child = try ChildProcess(executable, Array(words.dropFirst()) + ["run", "--only", only, "--json", file])
        let outcome = await child.wait()
        guard outcome.status == 0, let data = FileManager.default.contents(atPath: file) else {
            throw BenchError("the other platform's bench (\(child.command)) ended with status \(outcome.status) and wrote no rows")
        }
        let report = try JSONDecoder().decode(Report.self, from: data)
        return (report.rows, report.platform)
    }

    /// What `--json` writes: the rows and the platform they were measured on.
    struct Report: Codable {
        let platform: String
        let rows: [BenchmarkRow]
    }

    /// One table: a measure per line, each platform's figure and pass beside the other's.
    /// The double-talk PESQ-WB goal is AEC3's figure in the same room (#24: no canceller reached 2.0 there).
    func table() -> String {
        func short(_ name: String) -> String { name.split(separator: "(").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? name }
        var lines = ["| measure | \(hereName) | \(thereName) | goal | pass (\(short(hereName))) | pass (\(short(thereName))) |",
                     "|---|---|---|---|---|---|"]
        let theirs = Dictionary(there.map { ($0.measure, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        for row in here + there.filter({ !here.map(\.measure).contains($0.measure) }) where seen.insert(row.measure).inserted {
            let mine = here.first { $0.measure == row.measure }
            let other = theirs[row.measure]
            var goal = row.goal
            var passes = [mine?.formattedPass ?? "—", other?.formattedPass ?? "—"]
            if row.measure.hasPrefix("PESQ-WB of the student in double talk") {
                let aec3 = [(mine, hereName), (other, thereName)].first { $0.1.contains("AEC3") }?.0?.value
                goal = "≥ AEC3's figure in the same room" + (aec3.map { " (\(formatted($0, "MOS")))" } ?? "")
                passes = [mine, other].map { row in
                    guard let value = row?.value, let aec3 else { return "—" }
                    return value >= aec3 - 1e-9 ? "pass" : "FAIL"
                }
            }
            let cells = [row.measure, mine?.formattedValue ?? "—", other?.formattedValue ?? "—", goal] + passes
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// "Debian 12 (GStreamer 1.22.0, AEC1)"-style name of this process's platform.
    static var hereName: String { name(of: Platform.current.description) }

    /// The OS release's pretty name beside the platform's description.
    static func name(of platform: String) -> String {
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let pretty = release.split(separator: "\n").first { $0.hasPrefix("VERSION_ID=") }
            .map { "Debian " + $0.dropFirst("VERSION_ID=".count).replacingOccurrences(of: "\"", with: "") } ?? "this host"
        return "\(pretty) (\(platform))"
    }
}
