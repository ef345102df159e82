/// A direct configuration request the policy changed before applying it.
public struct PolicyCorrection: Sendable, Hashable, CustomStringConvertible {
    /// The module that made the request.
    public let owner: String
    /// Where the request was made.
    public let callSite: CallSite
    /// What was asked for (validated and normalised).
    public let requested: AudioConfiguration
    /// What the session recorded instead.
    public let corrected: AudioConfiguration
    /// The RTC lease holders the correction protects.
    public let rtcOwners: [String]

    /// Records a correction.
    public init(
        owner: String, callSite: CallSite, requested: AudioConfiguration, corrected: AudioConfiguration,
        rtcOwners: [String]
    ) {
        self.owner = owner
        self.callSite = callSite
        self.requested = requested
        self.corrected = corrected
        self.rtcOwners = rtcOwners
    }

    /// What changed, in words.
    public var summary: String { SessionPolicy.summary(from: requested, to: corrected) }

    /// A sentence for the operator console.
    public var description: String {
        "\(owner) at \(callSite) asked for \(requested) while RTC is live (\(rtcOwners.joined(separator: ", "))); "
            + "corrected to \(corrected): \(summary)"
    }
}
