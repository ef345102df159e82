/// One end of a route: a port and the device that provides it.
public struct RoutePort: Sendable, Hashable, CustomStringConvertible {
    /// The kind of device, which for Bluetooth also names the profile to use.
    public let port: Port
    /// The sound-server name of the device to target.
    public let deviceID: String
    /// The human-readable device name.
    public let name: String

    /// Describes a route end.
    public init(port: Port, deviceID: String, name: String) {
        self.port = port
        self.deviceID = deviceID
        self.name = name
    }

    /// "headphones:headset".
    public var description: String { "\(port):\(deviceID)" }
}
