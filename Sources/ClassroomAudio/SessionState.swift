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
    /// The output device the user named, by id: the route's output while it is connected; the
    /// choice ends only when that device goes away (DESIGN §4 Routes).
    public internal(set) var chosenOutput: String?
    /// The input device the user named, by id, held the same way as ``chosenOutput``.
    public internal(set) var chosenInput: String?
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

    /// The device the user named for a direction, if any.
    public func chosenDevice(for direction: AudioDevice.Direction) -> String? {
        direction == .output ? chosenOutput : chosenInput
    }

    /// Sets or clears the device the user named for a direction.
    mutating func setChosenDevice(_ id: String?, for direction: AudioDevice.Direction) {
        if direction == .output { chosenOutput = id } else { chosenInput = id }
    }

    /// The user volume of a channel.
    public func volume(of channel: VolumeChannel) -> Float {
        channel == .media ? mediaVolume : callVolume
    }
}
