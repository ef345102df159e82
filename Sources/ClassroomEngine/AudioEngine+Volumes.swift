import GStreamer

/// The engine's gains: the master volume (the session's active channel) and the courseware's ducking.
extension AudioEngine {
    /// Ramps the master volume (the session's active channel) to `gain` over `ramp`.
    public func setMasterVolume(_ gain: Double, ramp: ClockTime = .milliseconds(50)) {
        master.ramp(to: gain, over: ramp, now: runningTime)
    }

    /// The master volume's target gain.
    public var masterVolume: Double { master.targetGain }

    /// Ramps every ducked input (the courseware) to `factor` over `ramp`.
    public func setDucking(_ factor: Double, ramp: ClockTime) {
        for input in inputs { input.duck?.ramp(to: factor, over: ramp, now: runningTime) }
    }
}
