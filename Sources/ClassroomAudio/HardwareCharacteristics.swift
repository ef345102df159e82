/// What the current route's hardware actually runs at.
public struct HardwareCharacteristics: Sendable, Hashable {
    /// The sample rate in Hz.
    public let sampleRate: Double
    /// The duration of one I/O buffer.
    public let ioBufferDuration: Duration
    /// The number of output channels (0 with no output).
    public let outputChannelCount: Int
    /// The number of input channels (0 with no input).
    public let inputChannelCount: Int
    /// Whether an input device is available to record from.
    public let isInputAvailable: Bool

    /// Describes the hardware.
    public init(
        sampleRate: Double, ioBufferDuration: Duration, outputChannelCount: Int, inputChannelCount: Int,
        isInputAvailable: Bool
    ) {
        self.sampleRate = sampleRate
        self.ioBufferDuration = ioBufferDuration
        self.outputChannelCount = outputChannelCount
        self.inputChannelCount = inputChannelCount
        self.isInputAvailable = isInputAvailable
    }
}
