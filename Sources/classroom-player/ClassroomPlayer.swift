import ArgumentParser
import Foundation

/// The classroom-player command: plays a lesson plus a live feed through the classroom engine,
/// headless; lists devices and routes; probes lessons.
@main
struct ClassroomPlayer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classroom-player",
        abstract: "Plays a classroom lesson with a live RTC feed through the classroom audio engine, headless.",
        discussion: """
            'play' is the default: 'classroom-player LESSON --live FEED' is 'classroom-player play LESSON --live FEED'. \
            'classroom-player help play' describes the timeline, the control protocol, the events and the exit statuses.

            EXIT STATUS:
            \(ExitStatus.helpTable)
            """,
        version: Release.description,
        subcommands: [Play.self, Devices.self, Probe.self, Control.self],
        defaultSubcommand: Play.self
    )

    /// argument-parser's own main, except that `--mic-on=yes|no` is read too (YesNoFlags), and
    /// that under the service a usage error also names the settings variable the bad value came from.
    static func main() {
        do {
            var command = try parseAsRoot(YesNoFlags.normalized(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch {
            let status = exitCode(for: error)
            guard status != .success, let hint = UnitSettings()?.hint(for: message(for: error)) else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n" + hint + "\n").utf8))
            Foundation.exit(status.rawValue)
        }
    }
}
