import Synchronization

/// Hardware without a sound server, for tests and headless runs.
///
/// Bluetooth hands-free runs at 16 kHz mono (mSBC); everything else runs at the preferred rate
/// when it is one of ``supportedSampleRates``, else at 48 kHz, in stereo out and mono in.
/// I/O buffers default to 10 ms and are kept within 2.5…100 ms.
public final class SimulatedAudioHardware: AudioHardware {
    /// The sample rates a preference may select.
    public static let supportedSampleRates: Set<Double> = [16_000, 44_100, 48_000]

    private let running: Mutex<Bool>

    /// Creates simulated hardware, with I/O running or not.
    public init(isIORunning: Bool = false) {
        running = Mutex(isIORunning)
    }

    /// Whether simulated I/O is running; tests set it to exercise `isBusy`.
    public var isIORunning: Bool {
        get { running.withLock { $0 } }
        set { running.withLock { $0 = newValue } }
    }

    /// The simulated characteristics of a route.
    public func characteristics(for route: AudioRoute, preferences: HardwarePreferences) -> HardwareCharacteristics {
        let handsFree = route.output?.port == .bluetoothHFP || route.input?.port == .bluetoothHFP
        let sampleRate: Double
        if handsFree {
            sampleRate = 16_000
        } else if let preferred = preferences.sampleRate, Self.supportedSampleRates.contains(preferred) {
            sampleRate = preferred
        } else {
            sampleRate = 48_000
        }
        let buffer = min(max(preferences.ioBufferDuration ?? .milliseconds(10), .microseconds(2_500)), .milliseconds(100))
        return HardwareCharacteristics(
            sampleRate: sampleRate,
            ioBufferDuration: buffer,
            outputChannelCount: route.output == nil ? 0 : (handsFree ? 1 : 2),
            inputChannelCount: route.input == nil ? 0 : 1,
            isInputAvailable: route.input != nil)
    }
}
