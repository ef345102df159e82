/// Why the effective configuration changed.
public enum ConfigurationChangeReason: Sendable, Hashable {
    /// A lease was taken.
    case leaseAcquired(LeaseToken)
    /// A lease was released.
    case leaseReleased(LeaseToken)
    /// The session revoked what an owner held.
    case leasesRevoked(owner: String)
    /// A module set the base configuration directly.
    case categoryRequested(owner: String, callSite: CallSite)
}
