/// Startup to first audio out, from spawning a fresh process.
enum StartupMeasurement {
    static let measure = "Startup to first audio out"
    static let method = """
        A fresh `classroom-bench worker startup` process per run: GStreamer initialised, engine built and started (headless \
        output), an RTC input added whose feeder pushes 10 ms frames from the start. Figure: CLOCK_MONOTONIC from just \
        before the spawn to when the first audible output buffer is due at the sink (its running time + base time + the 100 ms \
        pipeline latency). One unmeasured run first warms the GStreamer registry and page cache; median of the runs.
        """

    static func rows(executable: String, runs: Int) async -> [BenchmarkRow] {
        do {
            _ = try await ChildProcess.run(executable, ["worker", "startup"])
            var times: [Double] = []
            for _ in 0..<runs {
                let outcome = try await ChildProcess.run(executable, ["worker", "startup"])
                let result = try ChildProcess.decode(StartupWorker.Outcome.self, from: outcome, command: "classroom-bench worker startup")
                times.append(Double(Int64(result.firstAudioAt) - Int64(outcome.spawnedAt)) / 1e6)
            }
            let detail = " Runs: \(times.map { formatted($0, "ms") }.joined(separator: ", "))."
            return [BenchmarkRow(measure: measure, value: times.median, unit: "ms", baseline: "—", goal: "—", pass: nil, runs: runs, method: method + detail)]
        } catch {
            return [.notMeasured(measure, unit: "ms", baseline: "—", goal: "—", method: method, error: error)]
        }
    }
}
