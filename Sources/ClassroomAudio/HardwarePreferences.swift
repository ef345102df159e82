/// What the kiosk would like from the hardware; the backend decides what it gets.
public struct HardwarePreferences: Sendable, Hashable {
    /// The preferred sample rate in Hz, or nil for the device's own.
    public var sampleRate: Double?
    /// The preferred I/O buffer duration, or nil for the backend's default.
    public var ioBufferDuration: Duration?

    /// Describes preferences; nil means no preference.
    public init(sampleRate: Double? = nil, ioBufferDuration: Duration? = nil) {
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
    }
}
