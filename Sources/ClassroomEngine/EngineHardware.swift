import ClassroomAudio

/// The session's view of the engine's hardware: the engine always runs 48 kHz in 10 ms blocks.
struct EngineHardware: AudioHardware {
    let engine: AudioEngine

    func characteristics(for route: AudioRoute, preferences: HardwarePreferences) -> HardwareCharacteristics {
        HardwareCharacteristics(
            sampleRate: Double(EngineGraph.outputFormat.rate),
            ioBufferDuration: .milliseconds(Int64(EngineGraph.frameDuration.milliseconds)),
            outputChannelCount: route.output == nil ? 0 : EngineGraph.outputFormat.channels,
            inputChannelCount: route.input == nil ? 0 : EngineGraph.uplinkFormat.channels,
            isInputAvailable: route.input != nil)
    }

    var isIORunning: Bool { engine.isRunning }
}
