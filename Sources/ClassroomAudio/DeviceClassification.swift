/// What the classifier concluded about one device.
public struct DeviceClassification: Sendable, Hashable {
    /// The port the device provides as it stands now.
    public let port: Port
    /// The name of the classifier rule that matched.
    public let rule: String
    /// Whether the device is a headset (worn, with a microphone): the communication device.
    public let isHeadset: Bool
    /// Whether the device can play in the Bluetooth stereo profile.
    public let supportsA2DP: Bool
    /// Whether the device can play and record in the Bluetooth hands-free profile.
    public let supportsHFP: Bool
    /// Groups the output and input of one physical device (the Bluetooth address, else the device id).
    public let physicalID: String

    /// Records a classification.
    public init(
        port: Port, rule: String, isHeadset: Bool, supportsA2DP: Bool, supportsHFP: Bool, physicalID: String
    ) {
        self.port = port
        self.rule = rule
        self.isHeadset = isHeadset
        self.supportsA2DP = supportsA2DP
        self.supportsHFP = supportsHFP
        self.physicalID = physicalID
    }
}
