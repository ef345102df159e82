/// The documented exit statuses of every subcommand, in one table for the code, `--help` and the README.
enum ExitStatus: Int32, CaseIterable {
    /// Played to the end (or stopped by a `stop` step or command); probe: the lesson can play.
    case success = 0
    /// Something named cannot be opened: a missing file, an unknown device, an unwritable
    /// output, a control socket in use; or a room refused as configured with nothing else playing.
    case cannotStart = 1
    /// Playback failed: the lesson cannot be decoded, the engine failed, or an output file could
    /// not be written (a full disk); probe: it cannot play.
    case playbackFailed = 2
    /// Played, but the output was silent (peak below -60 dBFS).
    case silentOutput = 3
    /// The command line or the timeline is wrong (argument-parser's usage status, EX_USAGE).
    case usage = 64
    /// No sound server answered (within `--wait-for-server`): one may still come, so a service
    /// manager should try again (EX_UNAVAILABLE).
    case unavailable = 69
    /// Stopped by SIGHUP (the terminal or SSH session went away) after a clean stop: the WAV is complete.
    case hangUp = 129
    /// Stopped by Ctrl-C (SIGINT) after a clean stop: the WAV is complete.
    case interrupted = 130
    /// Stopped by SIGTERM (systemctl stop) after a clean stop: the WAV is complete.
    case terminated = 143

    /// One line for the help text.
    var meaning: String {
        switch self {
        case .success: return "played to the end, or stopped by a stop step/command"
        case .cannotStart: return "something named cannot be opened (missing file, unknown device, unwritable WAV, control socket in use), or a room refused as configured when nothing else plays"
        case .playbackFailed: return "the lesson cannot be decoded or played, the engine failed, or an output file could not be written (disk full)"
        case .silentOutput: return "played, but the output was silent (peak below -60 dBFS)"
        case .usage: return "bad command line or timeline (the message names the option or step)"
        case .unavailable: return "no sound server answered (within --wait-for-server); one may still come, so systemd tries again"
        case .hangUp: return "stopped by SIGHUP (terminal or SSH session gone); the output was finalised"
        case .interrupted: return "stopped by Ctrl-C (SIGINT); the output was finalised"
        case .terminated: return "stopped by SIGTERM; the output was finalised"
        }
    }

    /// "  0  played …" lines for `--help`.
    static var helpTable: String {
        allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\($0.meaning)" }.joined(separator: "\n")
    }
}
