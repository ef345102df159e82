import ClassroomMeasurement
import Foundation

/// What the listener hears when every core of the kiosk is busy (DESIGN §7: continuity): five busy
/// minutes on PulseAudio and five on PipeWire, each a worker in a server of its own. How late this
/// machine wakes a real-time thread under load decides these figures, so they are measured here
/// and not asserted in `make test`; each row is the worst minute and lists every one.
enum BusyClassRows {
    /// Minutes per server in a full run: the spread between them is what the rows are about.
    static let runs = 5
    static let seconds = 60

    static let method = """
        classroom-bench worker busy in a private sound server of its own (scripts/with-pulseaudio.sh, scripts/with-pipewire.sh): \
        the engine (public API, its streaming threads SCHED_RR) plays a 500 Hz courseware tone at −20 dBFS peak on the speaker \
        null sink; once the output has settled, one busy loop per core at normal priority runs for \(seconds) s (CPUHog) while \
        the sink's monitor is recorded; \(runs) minutes per server in a full run, one with --quick. Judged from a second into \
        the load: a dropout is a 10 ms block more than 6 dB under the tone, a click a sample step steeper than the tone allows \
        (HeardContinuity).
        """

    static func rows(executable: String, runs: Int) async -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for (server, wrapper) in [("PulseAudio", "scripts/with-pulseaudio.sh"), ("PipeWire", "scripts/with-pipewire.sh")] {
            FileHandle.standardError.write(Data("classroom-bench: \(runs) busy minute(s) on \(server)\n".utf8))
            var minutes: [BusyClass] = [], failures: [String] = []
            for _ in 0..<runs {
                do {
                    let outcome = try await ChildProcess.run("/usr/bin/env", ["bash", wrapper, executable, "worker", "busy", "--seconds", "\(seconds)"])
                    minutes.append(try ChildProcess.decode(BusyClass.self, from: outcome, command: "classroom-bench worker busy under \(wrapper)"))
                } catch {
                    failures.append("not measured: \(error)")
                }
            }
            let notes = minutes.map(\.summary) + failures
            rows.append(row("Dropouts heard in a busy minute on \(server), worst of \(runs)", minutes.map(\.dropouts), runs: runs, notes: notes))
            rows.append(row("Clicks heard in a busy minute on \(server), worst of \(runs)", minutes.map(\.clicks), runs: runs, notes: notes))
            rows.append(row("Output underruns in a busy minute on \(server), worst of \(runs)", minutes.map(\.underrunsUnderLoad), runs: runs, notes: notes))
        }
        return rows
    }

    /// The worst minute is the value, every minute the baseline; the goal is none in any.
    private static func row(_ measure: String, _ counts: [Int], runs: Int, notes: [String]) -> BenchmarkRow {
        let method = method + " Each minute: " + notes.joined(separator: "; ") + "."
        guard let worst = counts.max() else {
            return .notMeasured(measure, unit: "", baseline: "—", goal: "0 in every minute", method: method, error: BenchError(notes.joined(separator: "; ")))
        }
        return BenchmarkRow(measure: measure, value: Double(worst), unit: "", baseline: "minutes: " + counts.map(String.init).joined(separator: ", "),
                            goal: "0 in every minute", pass: counts.count == runs && worst == 0, runs: counts.count, method: method)
    }
}
