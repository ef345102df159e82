import Foundation

/// CPU seconds per second of audio for each profile: the engine (a worker process running the
/// graph of pipelines/engine-<profile>.gst with the same stand-in sources) vs gst-launch-1.0
/// running that file, alternated, each process's whole rusage.
enum ProcessingCost {
    struct Result {
        let rows: [BenchmarkRow]
        /// gst-launch-1.0 engine-voice.gst's peak RSS (the baseline of the engine's).
        let gstVoicePeakRSSKiB: Int?
    }

    static let audioSeconds = 10.0

    static func rows(executable: String, runs: Int) async -> Result {
        var rows: [BenchmarkRow] = []
        var voiceRSS: Int?
        for profile in ["media", "voice"] {
            let measure = "CPU per audio second, \(profile) profile (engine vs gst-launch-1.0 of the same graph)"
            let method = """
                Whole-process user+system CPU (wait4 rusage) of a child running 10 s of audio, divided by 10 s. Engine: \
                `classroom-bench worker cost --profile \(profile)`: an AudioEngine (fakesink output) whose courseware, RTC and \
                effects inputs\(profile == "voice" ? " and pushed microphone (voice profile)" : "") are fed by SignalPumps \
                from the same audiotestsrc stand-ins as pipelines/engine-\(profile).gst — the pumps' pipelines, appsinks \
                and Swift pushes count against the engine. Baseline: gst-launch-1.0 running pipelines/engine-\(profile).gst \
                (10 s). Both include process start-up and GStreamer initialisation. Runs alternate engine/gst-launch; medians.
                """
            do {
                var engine: [Double] = [], gst: [Double] = [], gstRSS: [Int] = []
                let description = try graphWords(profile: profile)
                for _ in 0..<runs {
                    let worker = try await ChildProcess.run(executable, ["worker", "cost", "--profile", profile])
                    guard worker.status == 0 else { throw BenchError("the \(profile) worker exited with \(worker.status)") }
                    engine.append(worker.cpuSeconds / audioSeconds)
                    let launch = try await ChildProcess.run("gst-launch-1.0", ["-q"] + description)
                    guard launch.status == 0 else { throw BenchError("gst-launch-1.0 pipelines/engine-\(profile).gst exited with \(launch.status)") }
                    gst.append(launch.cpuSeconds / audioSeconds)
                    gstRSS.append(launch.peakRSSKiB)
                }
                if profile == "voice" { voiceRSS = gstRSS.max() }
                let ratio = engine.median / gst.median
                let detail = " Engine runs: \(engine.map { String(format: "%.4f", $0) }.joined(separator: ", ")); gst-launch runs: \(gst.map { String(format: "%.4f", $0) }.joined(separator: ", ")); overhead \(String(format: "%.2f", ratio))×."
                rows.append(BenchmarkRow(measure: measure, value: engine.median, unit: "CPU s/s", baseline: "gst-launch-1.0 pipelines/engine-\(profile).gst: \(formatted(gst.median, "CPU s/s"))",
                                         goal: "≤ 1.05 × baseline (overhead \(String(format: "%.2f", ratio))×)", pass: ratio <= 1.05, runs: runs, method: method + detail))
            } catch {
                rows.append(.notMeasured(measure, unit: "CPU s/s", baseline: "gst-launch-1.0 pipelines/engine-\(profile).gst", goal: "≤ 1.05 × baseline", method: method, error: error))
            }
        }
        return Result(rows: rows, gstVoicePeakRSSKiB: voiceRSS)
    }

    /// The description in pipelines/NAME.gst as gst-launch-1.0 words, as pipelines/run.sh splits it.
    static func graphWords(profile: String) throws -> [String] {
        let text = try String(contentsOfFile: "pipelines/engine-\(profile).gst", encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.flatMap { $0.split(whereSeparator: \.isWhitespace) }.map(String.init)
    }
}
