import ArgumentParser

/// The classroom-player command: plays a lesson plus a live feed, headless.
@main
struct ClassroomPlayer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classroom-player",
        abstract: "Plays a classroom lesson file together with a live feed, headless.",
        subcommands: [Play.self],
        defaultSubcommand: Play.self
    )
}
