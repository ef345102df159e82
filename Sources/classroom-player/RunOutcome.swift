import ClassroomEngine
import Foundation

/// Why a run ended.
enum RunEnding: Sendable, Equatable {
    /// The lesson ended (and the live feed, with --until-live-ends, and every step ran).
    case completed
    /// A `stop` step or command.
    case stopCommand(String)
    /// SIGINT, SIGTERM or SIGHUP.
    case signal(Int32)
    /// The lesson failed while playing.
    case lessonFailed(String)
    /// Something named turned out unusable once the class had started (a room refused): exit 1.
    case cannotUse(String)
    /// The output file could not be written (a full disk): the mix had nowhere to go.
    case outputFailed(String)

    /// The `reason` of the `stopped` event.
    var name: String {
        switch self {
        case .completed: return "completed"
        case .stopCommand: return "stop-command"
        case .signal(let number): return number == SIGINT ? "sigint" : number == SIGHUP ? "sighup" : "sigterm"
        case .lessonFailed: return "lesson-failed"
        case .cannotUse: return "cannot-use"
        case .outputFailed: return "output-failed"
        }
    }
}

/// How a run went: why it ended, what the output carried, and the exit status that says so.
struct RunOutcome {
    let ending: RunEnding
    let summary: LevelMeter.Summary
    let status: ExitStatus
    /// Why the lesson could not play or broke, when the class went on without it.
    let lessonFailure: String?
    /// Why an output file (the uplink WAV) could not be written, when the class went on without it.
    let outputFailure: String?

    /// Judges the run: a signal exits with its status, a lesson that failed or an output that could
    /// not be written exits 2 (the lesson even when the class went on without it), and a silent
    /// output exits 3.
    init(ending: RunEnding, lessonFailure: String?, outputFailure: String? = nil, summary: LevelMeter.Summary) {
        self.ending = ending
        self.summary = summary
        self.lessonFailure = lessonFailure
        self.outputFailure = outputFailure
        switch ending {
        case .signal(let number): status = number == SIGINT ? .interrupted : number == SIGHUP ? .hangUp : .terminated
        case .lessonFailed, .outputFailed: status = .playbackFailed
        case .cannotUse: status = .cannotStart
        case .completed, .stopCommand: status = lessonFailure != nil || outputFailure != nil ? .playbackFailed : summary.isSilent ? .silentOutput : .success
        }
    }

    /// The `stopped` event's first fields: the reason, the exit status and the output's figures;
    /// with `failure`, the run could not start, and the exit status is the one the process exits with.
    func stoppedFields(output: String, failure: PlayerError? = nil) -> [(String, JSON)] {
        if let failure {
            return [("reason", .string("start-failed")), ("message", .string(failure.description)), ("exit", .number(Double(failure.exitStatus.rawValue))),
                    ("seconds", .number(summary.seconds)), ("output", .string(output))]
        }
        var fields: [(String, JSON)] = [("reason", .string(ending.name))]
        if case .lessonFailed(let why) = ending { fields.append(("message", .string(why))) }
        if case .cannotUse(let why) = ending { fields.append(("message", .string(why))) }
        if case .outputFailed(let why) = ending { fields.append(("message", .string(why))) }
        if let lessonFailure { fields.append(("lesson_failed", .string(lessonFailure))) }
        if let outputFailure { fields.append(("output_failed", .string(outputFailure))) }
        fields += [("exit", .number(Double(status.rawValue))), ("seconds", .number(summary.seconds)),
                   ("rms_db", .maybe(summary.rmsDB.isFinite ? summary.rmsDB : nil)), ("peak_db", .maybe(summary.peakDB.isFinite ? summary.peakDB : nil)),
                   ("output", .string(output))]
        return fields
    }
}
