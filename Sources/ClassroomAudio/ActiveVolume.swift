/// The volume the engine applies at the master volume element: the active channel and its value.
public struct ActiveVolume: Sendable, Hashable {
    /// The channel the kiosk volume keys change now.
    public let channel: VolumeChannel
    /// Its value, 0…1.
    public let value: Float

    /// Describes the active volume.
    public init(channel: VolumeChannel, value: Float) {
        self.channel = channel
        self.value = value
    }
}
