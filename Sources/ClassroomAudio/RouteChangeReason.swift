/// Why the route changed.
public enum RouteChangeReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A device was connected and won the route.
    case newDeviceAvailable
    /// The device in use was disconnected.
    case oldDeviceUnavailable
    /// A connected device changed (its profile, port or default flag).
    case routeConfigurationChange
    /// The configuration changed, and with it the ports it allows.
    case categoryChange
    /// The output was explicitly overridden, or the override was removed.
    case override
    /// The kiosk woke from sleep.
    case wakeFromSleep
    /// The configuration needs a device that is not connected (recording with no input).
    case noSuitableRouteForCategory

    /// The reason name as written in logs.
    public var description: String { rawValue }
}
