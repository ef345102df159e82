import Foundation

/// The long run as the parent sees it: started first, waited for at the end.
final class SoakRun: Sendable {
    private let child: ChildProcess
    private let progressPath: String
    private let plan: BenchmarkPlan

    init(executable: String, plan: BenchmarkPlan) throws {
        self.plan = plan
        progressPath = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-bench-soak-\(getpid()).progress").path
        try? FileManager.default.removeItem(atPath: progressPath)
        child = try ChildProcess(executable, ["worker", "soak", "--seconds", "\(plan.soakSeconds)", "--cycles", "\(plan.cycles)",
                                              "--retargets", "\(plan.retargets)", "--progress", progressPath])
    }

    /// Returns once the soak has finished its cycles (or after 5 minutes, or when it has died).
    func waitForCycles() async {
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: progressPath), kill(child.pid, 0) == 0 {
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    struct Rows {
        let continuity: [BenchmarkRow]
        let memory: [BenchmarkRow]
    }

    static let continuityBaseline = "iOS: the RTC SDK destroys its audio unit and creates a new one on the switch (reference 000); no figure"

    func rows(voiceBaselineRSSKiB: Int?) async -> Rows {
        let outcome = await child.wait()
        try? FileManager.default.removeItem(atPath: progressPath)
        let cycles = "\(plan.cycles) mic connect/disconnect cycles + \(plan.retargets) sink retargets"
        let continuityMethod = """
            In the long-run child on the private PulseAudio server: engine output to pulsesink (null sink "speaker"), a 500 Hz \
            courseware sine (−23 dBFS) and a 300 Hz RTC sine (−29 dBFS) pumped in; after the output settles, \(plan.cycles) \
            cycles of connectMicrophone (pulsesrc on another null sink's monitor, voice profile) → 60 ms → disconnect → 40 ms, with the output moved between "speaker" and a second null sink every \(max(1, plan.cycles / plan.retargets)) \
            cycles (pulsesink `device`). Every buffer reaching the output sink is checked (ContinuityMeter): PTS ≠ previous \
            PTS + duration (> 1 µs), DISCONT flags, and sample steps on channel 0 beyond 1.5 × the two sines' largest slope.
            """
        let memoryMethod = """
            The long-run child after its cycles: microphone connected (voice profile), courseware and RTC playing to \
            PulseAudio in real time until \(plan.soakSeconds) s; RSS from /proc/self/statm every 5 s.
            """
        let result: SoakWorker.Outcome
        do {
            result = try ChildProcess.decode(SoakWorker.Outcome.self, from: outcome, command: "classroom-bench worker soak")
        } catch {
            return Rows(
                continuity: ["timestamp gaps", "DISCONT buffers", "clicks"].map {
                    .notMeasured("Continuity over \(cycles): \($0)", unit: "", baseline: Self.continuityBaseline, goal: "0", method: continuityMethod, error: error)
                },
                memory: [.notMeasured("Peak RSS over the long run", unit: "MiB", baseline: "—", goal: "—", method: memoryMethod, error: error),
                         .notMeasured("RSS growth over the long run", unit: "MiB", baseline: "—", goal: "—", method: memoryMethod, error: error)])
        }
        let c = result.cycleContinuity, whole = result.runContinuity
        let detail = " Over the cycles: \(c.buffers) buffers, \(c.droppedPushes) pushes dropped by full input queues, \(result.retargets) retargets made. Over the whole \(Int(result.seconds)) s run: \(whole.buffers) buffers, \(whole.gaps) gaps, \(whole.discontinuities) DISCONT, \(whole.clicks) clicks."
        let continuity = [("timestamp gaps", c.gaps), ("DISCONT buffers", c.discontinuities), ("clicks", c.clicks)].map { name, count in
            BenchmarkRow(measure: "Continuity over \(cycles): \(name)", value: Double(count), unit: "", baseline: Self.continuityBaseline,
                         goal: "0", pass: count == 0, runs: plan.cycles, method: continuityMethod + detail)
        }
        let peakBaseline = voiceBaselineRSSKiB.map { "gst-launch-1.0 pipelines/engine-voice.gst (10 s): \(formatted(Double($0) / 1024, "MiB"))" } ?? "—"
        let peak = BenchmarkRow(measure: "Peak RSS over the long run (\(Int(result.seconds)) s)", value: Double(result.peakRSSKiB) / 1024, unit: "MiB",
                                baseline: peakBaseline, goal: "—", pass: nil, runs: 1, method: memoryMethod + " Peak: the child's ru_maxrss (getrusage).")
        // Growth over the steady phase, from 10 s after it began: allocations that settle in the first seconds are not growth.
        let steady = result.rss.filter { $0[0] >= result.steadyFrom + 10 }
        let growthMeasure = "RSS growth over the long run at real time"
        let growth: BenchmarkRow
        if let first = steady.first, let last = steady.last, steady.count >= 2 {
            let slope = Self.slope(steady) * 60 / 1024   // MiB per minute
            growth = BenchmarkRow(measure: growthMeasure, value: (last[1] - first[1]) / 1024, unit: "MiB", baseline: "—", goal: "—", pass: nil,
                                  runs: steady.count, method: memoryMethod + " Figure: RSS at \(Int(last[0])) s minus RSS at \(Int(first[0])) s (\(formatted(first[1] / 1024, "MiB")) → \(formatted(last[1] / 1024, "MiB"))); least-squares slope \(String(format: "%.3f", slope)) MiB/min over \(steady.count) samples. Across the \(plan.cycles) mic cycles before it: \(formatted(result.rssAroundCycles[0] / 1024, "MiB")) → \(formatted(result.rssAroundCycles[1] / 1024, "MiB")).")
        } else {
            growth = .notMeasured(growthMeasure, unit: "MiB", baseline: "—", goal: "—", method: memoryMethod, error: BenchError("the steady phase was too short for two RSS samples"))
        }
        return Rows(continuity: continuity, memory: [peak, growth])
    }

    /// Least-squares slope of [x, y] points (y per x).
    private static func slope(_ points: [[Double]]) -> Double {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1[0] } / n, meanY = points.reduce(0) { $0 + $1[1] } / n
        let covariance = points.reduce(0) { $0 + ($1[0] - meanX) * ($1[1] - meanY) }
        let variance = points.reduce(0) { $0 + ($1[0] - meanX) * ($1[0] - meanX) }
        return variance > 0 ? covariance / variance : 0
    }
}
