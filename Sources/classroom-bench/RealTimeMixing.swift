/// RTC inputs mixed in real time on one core: a worker per run, started with `taskset -c 0`.
enum RealTimeMixing {
    static let goal = "keeps up: every 10 ms block on time with every input in it"

    static func rows(executable: String, inputs: [Int], runs: Int) async -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for count in inputs {
            let measure = "RTC inputs mixed in real time on one core: \(count)"
            let method = """
                `taskset -c 0 classroom-bench worker mix --inputs \(count) --seconds 5`: \(count) RTC input\(count == 1 ? "" : "s") on a headless engine; \
                a feeder thread pushes a 10 ms frame (the same 500 Hz sine, one timestamp grid) into every input every 10 ms. \
                Figure: the worker's own CPU (getrusage) over the 5 s of feeding, as % of the one core, median of the runs. Kept up \
                when ≥ 99 % of the 10 ms blocks due in the measured window (0.5 s after the start to 0.2 s before the end) reached \
                the output and every one of them was within 0.1 dB of the full mix (a block missing one input of 32 is 0.28 dB quieter).
                """
            do {
                var percents: [Double] = []
                var keptUp = true
                var details: [String] = []
                for _ in 0..<runs {
                    let command = ["-c", "0", executable, "worker", "mix", "--inputs", "\(count)", "--seconds", "5"]
                    let outcome = try await ChildProcess.run("taskset", command)
                    let result = try ChildProcess.decode(MixWorker.Outcome.self, from: outcome, command: "taskset " + command.joined(separator: " "))
                    percents.append(100 * result.cpuSeconds / result.wallSeconds)
                    let ok = Double(result.blocks) >= 0.99 * Double(result.expectedBlocks) && result.fullBlocks == result.blocks
                    keptUp = keptUp && ok
                    details.append("\(result.fullBlocks)/\(result.blocks) full of \(result.expectedBlocks) due, \(result.droppedPushes) dropped pushes, \(result.lateTicks) late feeder ticks")
                }
                rows.append(BenchmarkRow(measure: measure, value: percents.median, unit: "% of one core", baseline: "—", goal: goal,
                                         pass: keptUp, runs: runs, method: method + " Runs: " + details.joined(separator: "; ") + "."))
            } catch {
                rows.append(.notMeasured(measure, unit: "% of one core", baseline: "—", goal: goal, method: method, error: error))
            }
        }
        return rows
    }
}
