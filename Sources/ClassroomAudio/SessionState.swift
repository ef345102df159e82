/// Everything the session knows, as one value; every other fact is computed from it by
/// ``SessionResolver/resolve(_:)``.
public struct SessionState: Sendable, Hashable {
    /// The fixed settings.
    public let settings: SessionSettings
    /// The session's identity, carried by its tokens.
    public let sessionID: UInt64
    /// The app's configuration after policy correction: what applies when no lease needs more.
    public internal(set) var base: AudioConfiguration
    /// The live leases, in acquisition order.
    public internal(set) var leases: [Lease] = []
    /// The live ducking requests, in request order.
    public internal(set) var ducks: [DuckToken] = []
    /// The connected devices, in connection order (the last one connected is last).
    public internal(set) var devices: [AudioDevice] = []
    /// The explicit output override, until the next route change.
    public internal(set) var portOverride: PortOverride = .none
    /// The media volume, 0…1.
    public internal(set) var mediaVolume: Float
    /// The call volume, floor…1.
    public internal(set) var callVolume: Float
    /// How many `setActive(true)` calls are not yet balanced by `setActive(false)`.
    public internal(set) var activationCount = 0
    /// The interruption state machine.
    public internal(set) var interruption = InterruptionState()
    /// Alarms the engine raised and has not cleared, in raise order.
    public internal(set) var raisedAlarms: [Alarm] = []
    /// The hardware preferences.
    public internal(set) var preferences = HardwarePreferences()
    /// The serial of the next token.
    public internal(set) var nextSerial: UInt64 = 1
    /// Serials of leases and ducks the session revoked, so their release is reported as stale.
    public internal(set) var revokedSerials: Set<UInt64> = []

    /// A fresh state with the given settings.
    init(settings: SessionSettings, sessionID: UInt64) {
        self.settings = settings
        self.sessionID = sessionID
        base = settings.baseConfiguration
        mediaVolume = settings.mediaVolume
        callVolume = settings.callVolume
    }

    /// The requirements of the live leases, in acquisition order.
    public var requirements: [AudioRequirement] { leases.map(\.requirement) }

    /// Whether RTC is live: some lease is an RTC lease.
    public var rtcIsLive: Bool { leases.contains { $0.requirement.isRTC } }

    /// The owners of the RTC leases, without repeats, in acquisition order.
    public var rtcOwners: [String] {
        leases.filter { $0.requirement.isRTC }.map(\.owner).reduce(into: []) { owners, owner in
            if !owners.contains(owner) { owners.append(owner) }
        }
    }

    /// Whether the sound server is gone.
    public var mediaServicesLost: Bool { interruption.contains(.mediaServicesLost) }

    /// The user volume of a channel.
    public func volume(of channel: VolumeChannel) -> Float {
        channel == .media ? mediaVolume : callVolume
    }
}
