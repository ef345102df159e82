/// Everything the engine applies, as one value: it compares the new value with the one it
/// applied last and changes only what differs.
public struct ResolvedState: Sendable, Hashable {
    /// The effective configuration.
    public let configuration: AudioConfiguration
    /// Whether audio should run: activated, not interrupted, not waiting for reactivation.
    public let isActive: Bool
    /// Whether the microphone chain should exist: a lease or the base configuration records.
    public let isRecording: Bool
    /// The master volume: active channel and value.
    public let volume: ActiveVolume
    /// The ducking factor and ramp of the ducked inputs.
    public let ducking: DuckingState
    /// The output and input.
    public let route: AudioRoute
    /// Whether an interruption is in progress (session inactive, uplink muted).
    public let isInterrupted: Bool
    /// The active alarms, ordered by code and owner.
    public let alarms: [Alarm]

    /// Assembles a resolved state; ``SessionResolver/resolve(_:)`` is the way to compute one.
    public init(
        configuration: AudioConfiguration, isActive: Bool, isRecording: Bool, volume: ActiveVolume,
        ducking: DuckingState, route: AudioRoute, isInterrupted: Bool, alarms: [Alarm]
    ) {
        self.configuration = configuration
        self.isActive = isActive
        self.isRecording = isRecording
        self.volume = volume
        self.ducking = ducking
        self.route = route
        self.isInterrupted = isInterrupted
        self.alarms = alarms
    }

    /// The processing profile: voice for chat modes, raw for measurement, media otherwise.
    public var processingProfile: ProcessingProfile { configuration.processingProfile }

    /// The `media.role` for the output stream.
    public var mediaRole: String { configuration.mediaRole }

    /// Whether the configuration needs an input and none is connected.
    public var lacksRequiredInput: Bool { isRecording && route.input == nil }

    /// Whether the configuration plays and no output is connected.
    public var lacksRequiredOutput: Bool { configuration.category.producesOutput && route.output == nil }
}
