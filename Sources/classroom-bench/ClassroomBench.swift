import ArgumentParser

/// The benchmark: every measurement of DESIGN §7 in one run (`run`, the default), and the
/// workers it starts as child processes so each one's CPU and memory are its own.
@main
struct ClassroomBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classroom-bench",
        abstract: "Runs every measurement of DESIGN §7 and writes docs/BENCHMARKS.md and docs/benchmarks.json.",
        subcommands: [RunBenchmarks.self, Worker.self],
        defaultSubcommand: RunBenchmarks.self
    )
}

/// The child processes of a run; not meant to be started by hand.
struct Worker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "One measurement in a process of its own (started by `run`).",
        shouldDisplay: false,
        subcommands: [CostWorker.self, MixWorker.self, StartupWorker.self, SoakWorker.self, EchoWorker.self, AVSyncWorker.self, PeersWorker.self, RoomWorker.self, BusyClassWorker.self]
    )
}
