import Foundation

/// One line of the report: a measure, our figure, what it is compared with, and the goal.
struct BenchmarkRow: Codable, Sendable {
    /// What is measured.
    let measure: String
    /// Our figure; nil when it could not be measured (the method says why).
    let value: Double?
    /// The figure's unit.
    let unit: String
    /// What the figure is compared with, with its own figure where there is one, or "—".
    let baseline: String
    /// The goal from DESIGN §7 or the issue, or "—" where none is set.
    let goal: String
    /// Whether the goal is met; nil when there is no goal or no figure.
    let pass: Bool?
    /// How many runs (or events) the figure summarises.
    let runs: Int
    /// How it was measured.
    let method: String

    /// The figure as the table shows it.
    var formattedValue: String {
        guard let value, value.isFinite else { return value.map { "\($0)" } ?? "not measured" }
        // Counts (gaps, clicks) are whole numbers.
        if unit.isEmpty, value == value.rounded() { return String(Int(value)) }
        let digits = abs(value) >= 100 ? 0 : abs(value) >= 10 ? 1 : abs(value) >= 1 ? 2 : 3
        return String(format: "%.\(digits)f", value) + (unit.isEmpty ? "" : " \(unit)")
    }

    /// pass / FAIL / —.
    var formattedPass: String { pass.map { $0 ? "pass" : "FAIL" } ?? "—" }

    /// A row for a measurement that failed to run: no figure, the reason in the method.
    static func notMeasured(_ measure: String, unit: String, baseline: String, goal: String, method: String, error: any Error) -> BenchmarkRow {
        BenchmarkRow(measure: measure, value: nil, unit: unit, baseline: baseline, goal: goal, pass: goal == "—" ? nil : false, runs: 0,
                     method: "\(method) NOT MEASURED: \(error)")
    }
}

/// A figure with the same precision rules as the table, for baselines written in prose.
func formatted(_ value: Double, _ unit: String) -> String {
    BenchmarkRow(measure: "", value: value, unit: unit, baseline: "", goal: "", pass: nil, runs: 0, method: "").formattedValue
}
