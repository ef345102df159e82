import ClassroomEngine
import Logging

/// The engine on a sound-server device with a steady courseware tone, settled, and that device's
/// monitor recorded: what a listener-side continuity check (`HeardContinuity`) judges.
public final class TonePlayback: Sendable {
    /// The tone: quiet enough never to clip in the mix, at a frequency the judge tracks.
    public static let tone = (amplitude: 0.1, frequency: 500.0)

    public let engine: AudioEngine
    public let courseware: AudioInput
    public let recording: MonitorRecording
    private let pump: SignalPump

    /// Starts the engine on `device`, pumps the tone into its courseware input, waits until the
    /// output has settled (`OutputWarmUp`) and then starts recording the device's monitor; returns
    /// half a second later, the recording's own start behind it. Throws when the output does not settle.
    public static func start(device: String = "speaker", logger: Logger) async throws -> TonePlayback {
        let engine = try AudioEngine(output: .soundServer(device: device), logger: logger)
        try engine.start()
        do {
            let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
            let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=\(Int(tone.frequency)) volume=\(tone.amplitude) samplesperbuffer=480",
                                      into: courseware, format: EngineGraph.outputFormat)
            guard await OutputWarmUp.settle(engine, input: courseware) else {
                pump.stop()
                throw MeasurementError("the output on '\(device)' did not settle: the courseware tone still dropped pushes after 10 s")
            }
            let recording = try MonitorRecording(device: device)
            try await Task.sleep(for: .milliseconds(500))
            return TonePlayback(engine: engine, courseware: courseware, pump: pump, recording: recording)
        } catch {
            engine.stop()
            throw error
        }
    }

    private init(engine: AudioEngine, courseware: AudioInput, pump: SignalPump, recording: MonitorRecording) {
        self.engine = engine
        self.courseware = courseware
        self.pump = pump
        self.recording = recording
    }

    /// What the monitor heard from sample `start` on, judged for the tone.
    public func heard(from start: Int) -> HeardContinuity {
        HeardContinuity(recording.recorded, amplitude: Self.tone.amplitude, frequency: Self.tone.frequency, from: start)
    }

    /// Stops the recording, the tone and the engine.
    public func stop() {
        recording.stop()
        pump.stop()
        engine.stop()
    }
}
