/// The engine's view of the hardware, which the session asks for characteristics.
///
/// The session calls these requirements without holding its lock, from whatever thread called
/// the session; implementations must be thread-safe and may call back into the session.
public protocol AudioHardware: Sendable {
    /// The characteristics of the hardware behind a route, honouring the preferences where it can.
    func characteristics(for route: AudioRoute, preferences: HardwarePreferences) -> HardwareCharacteristics

    /// Whether audio input or output is running, so deactivating would cut it off.
    var isIORunning: Bool { get }
}
