/// An adapter that follows a run for the outside world (systemd, metrics, MPRIS): it reads what
/// the run publishes and changes the player only through `PlayerRun.perform(_:from:)`.
protocol RunFollower: Sendable {
    /// The lesson started playing; `run` answers commands from now on.
    func runStarted(_ run: PlayerRun)
    /// One window of the output meter went by: audio reached the output. Called on the bus
    /// thread, so it only records.
    func outputAdvanced()
    /// The run is stopping; `run` answers no more commands.
    func runStopping()
}
