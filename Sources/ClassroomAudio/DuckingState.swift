/// The ducking the engine applies on the ducked inputs, separate from the user volumes.
public struct DuckingState: Sendable, Hashable {
    /// The gain factor: 1 with no holder, the configured factor with any number of holders.
    public let factor: Float
    /// How long the engine ramps to ``factor`` (never a step).
    public let ramp: Duration

    /// Describes ducking.
    public init(factor: Float, ramp: Duration) {
        self.factor = factor
        self.ramp = ramp
    }

    /// Whether ducking is applied.
    public var isDucked: Bool { factor < 1 }
}
