import ClassroomMeasurement
import Foundation
import Logging

/// The canceller in a second room, five runs at each unreported latency: a canceller tuned to the
/// suite's room must hold in another one, in every run, so each row is the worst run and says the
/// spread (DESIGN §7: the room rows).
enum SecondRoomRows {
    /// How many runs make a row: the spread between them is what the row is about.
    static let runs = 5
    /// The unreported device latencies measured (the suite's room uses the same two for double talk).
    static let delays = [0, 150]
    /// What every run must reach.
    static let erleGoal = 55.0, keptGoal = -6.0

    static func rows(script: String, logger: Logger) async -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for delay in delays {
            rows.append(await erleRow(delay: delay, script: script, logger: logger))
            rows.append(await keptRow(delay: delay, script: script, logger: logger))
        }
        return rows
    }

    private static let method = """
        The room rig (scripts/room/room.py) as a second room: what the speaker sink plays is captured, convolved with that \
        room's impulse response (the direct path, the six first-order images of a shoebox room and a diffuse tail), its noise \
        added, and played into a microphone null sink at capture time + the extra latency + the rig's own floor. The room: \
        \(RoomSetting.second.description). Far end: the teacher as an RTC feed; microphone: the sink's monitor; voice profile; \
        public API only. \(runs) runs, each with a new engine and room; the value is the worst run.
        """

    private static func erleRow(delay: Int, script: String, logger: Logger) async -> BenchmarkRow {
        await worstOfRuns(measure: "ERLE after 8 s, engine voice profile, \(RoomSetting.second.name), \(delay) ms unreported latency, worst of \(runs) runs",
                          goal: erleGoal,
                          method: method + " ERLE = 10·log10(ΣE_mic / ΣE_uplink) over the 10 ms frames with echo above −50 dBFS, from 8 s after the first.") {
            let run = try await RoomEchoMeasurement.run(script: script, delay: delay, room: .second, logger: logger)
            return (run.path.erle, runNote(run))
        }
    }

    private static func keptRow(delay: Int, script: String, logger: Logger) async -> BenchmarkRow {
        await worstOfRuns(measure: "Near end kept in double talk, engine voice profile, \(RoomSetting.second.name), \(delay) ms unreported latency, worst of \(runs) runs",
                          goal: keptGoal,
                          method: method + " The student speaks into the room 8 s in, while the teacher is still talking, and once with the teacher silent; "
                              + "kept = 10·log10(E_uplink with both / E_uplink student alone) over the student's span, residual echo included (ITU-T P.340 type 2a asks ≥ −6 dB).") {
            let talk = try await RoomNearEnd.doubleTalk(script: script, delay: delay, room: .second, logger: logger)
            return (talk.kept, "\(formatted(talk.kept, "dB")) kept, level control over the student \(studentGains(talk)), with the teacher: \(runNote(talk.both))")
        }
    }

    /// `runs` runs of `measure` in dB: the worst is the value, every run and the median the baseline,
    /// and each run's note (or why it was not measured) ends the method.
    private static func worstOfRuns(measure: String, goal least: Double, method: String,
                                    _ once: () async throws -> (figure: Double, note: String)) async -> BenchmarkRow {
        let goal = "≥ \(formatted(least, "dB")) in every run"
        var figures: [Double] = [], notes: [String] = []
        for _ in 0..<runs {
            do {
                let (figure, note) = try await once()
                figures.append(figure)
                notes.append(note)
            } catch {
                notes.append("not measured: \(error)")
            }
        }
        guard let worst = figures.min() else {
            return .notMeasured(measure, unit: "dB", baseline: "—", goal: goal, method: method, error: BenchError(notes.joined(separator: "; ")))
        }
        return BenchmarkRow(measure: measure, value: worst, unit: "dB", baseline: spread(figures, "dB"), goal: goal,
                            pass: figures.count == runs && worst >= least, runs: figures.count,
                            method: method + " Each run: " + notes.joined(separator: "; ") + ".")
    }

    /// The level control's mean gain over the student's speech, alone and with the teacher: a
    /// student kept quieter in double talk by a gain held back, not by the canceller, shows here.
    private static func studentGains(_ talk: RoomNearEnd.DoubleTalk) -> String {
        let seconds = Double(talk.uplink(withTeacher: false).count - 2 * RoomNearEnd.DoubleTalk.margin) / 48_000
        func mean(_ run: RoomEchoMeasurement.Result, from onset: Double) -> String {
            let over = run.gains.filter { $0.seconds >= onset && $0.seconds <= onset + seconds }.map(\.gain)
            return over.isEmpty ? "none" : formatted(over.reduce(0, +) / Double(over.count), "dB")
        }
        return "alone \(mean(talk.alone, from: talk.onsets.alone)), with the teacher \(mean(talk.both, from: talk.onsets.both))"
    }

    /// Every run's figure and their median, for the baseline column.
    private static func spread(_ figures: [Double], _ unit: String) -> String {
        let sorted = figures.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        return "runs: " + figures.map { formatted($0, unit) }.joined(separator: ", ") + "; median \(formatted(median, unit))"
    }

    /// What to read first when a run falls short: the path applied and when, the measured one, and
    /// the capture's and the output's breaks.
    private static func runNote(_ run: RoomEchoMeasurement.Result) -> String {
        let applied = run.appliedPaths.map { path in
            "\(path.path.delay.milliseconds) ms" + (path.seconds.map { String(format: " at %.1f s", $0) } ?? "")
        }
        let steps = run.microphoneSteps.filter(\.discont).count
        return "ERLE \(formatted(run.path.erle, "dB")), paths applied \(applied.isEmpty ? "none" : applied.joined(separator: ", ")), "
            + "measured \(run.truth.map { "\($0.milliseconds) ms" } ?? "none"), \(run.microphoneSteps.count) capture steps (\(steps) DISCONT), "
            + "\(run.outputUnderruns.count) output underruns"
    }
}
