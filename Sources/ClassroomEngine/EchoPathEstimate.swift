import GStreamer

/// Where the echo is: how long after a sample is played (running time + output latency) its echo
/// reaches the microphone, as the engine measured it.
public struct EchoPathEstimate: Sendable, Hashable, CustomStringConvertible {
    /// The echo path: acoustic distance plus device latency nobody reported.
    public let delay: ClockTime
    /// 0…1: how far the correlation peak stands above the best competing peak (1 − runner-up/peak).
    public let confidence: Double

    /// An estimate of `delay` with `confidence`.
    public init(delay: ClockTime, confidence: Double) {
        self.delay = delay
        self.confidence = confidence
    }

    public var description: String {
        "\(Double(delay.nanoseconds) / 1e6) ms (confidence \((confidence * 100).rounded() / 100))"
    }
}
