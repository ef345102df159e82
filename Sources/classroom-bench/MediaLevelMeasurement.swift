import ClassroomAudio
import ClassroomEngine
import ClassroomMeasurement
import GStreamer
import Logging

/// Media level across mic-connect: a courseware tone through the session controller, RMS at the
/// output for 1 s before the switch and 1 s after it.
enum MediaLevelMeasurement {
    static let measure = "Media level Δ across mic-connect"
    static let baseline = "iOS: media is suppressed under call volume (\"the sound will become smaller\", reference 000); no figure given"
    static let method = """
        SessionController on a headless engine (fakesink, real time), playback lease, a 500 Hz sine at −23 dBFS as the \
        courseware input; connectMicrophone() takes the voiceCall lease (voice profile, call volume, same gain as media). \
        RMS of channel 0 over the 1 s of output before the request vs 0.2–1.2 s after it (the 50 ms volume ramp excluded), \
        from the output tap. The figure is the largest |Δ| of the runs.
        """

    static func rows(runs: Int, logger: Logger) async -> [BenchmarkRow] {
        do {
            var deltas: [Double] = []
            for _ in 0..<runs { deltas.append(try await once(logger: logger)) }
            let worst = deltas.map(abs).max() ?? .nan
            let all = deltas.map { formatted($0, "dB") }.joined(separator: ", ")
            return [BenchmarkRow(measure: measure, value: worst, unit: "dB", baseline: baseline, goal: "|Δ| ≤ 0.1 dB",
                                 pass: worst <= 0.1, runs: runs, method: method + " Runs: \(all).")]
        } catch {
            return [.notMeasured(measure, unit: "dB", baseline: baseline, goal: "|Δ| ≤ 0.1 dB", method: method, error: error)]
        }
    }

    private static func once(logger: Logger) async throws -> Double {
        let controller = try SessionController(output: .discard, microphone: .fixed(.pushed), logger: logger)
        try controller.start()
        defer { controller.stop() }
        let lease = try controller.session.lease(.playback, owner: "courseware")
        let courseware = try controller.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware,
                                  format: EngineGraph.outputFormat)
        defer { pump.stop() }
        let capture = try OutputCapture(controller.engine)
        defer { capture.stop() }
        guard await capture.wait(until: .seconds(1.6)), let switchAt = capture.all.last?.pts else {
            throw BenchError("the output did not reach 1.6 s")
        }
        try controller.connectMicrophone()
        guard controller.session.resolvedState.processingProfile == .voice else { throw BenchError("mic-connect did not select the voice profile") }
        guard await capture.wait(until: switchAt + .seconds(1.3)) else { throw BenchError("the output stalled after mic-connect") }
        let before = capture.rms(in: switchAt - .seconds(1)..<switchAt)
        let after = capture.rms(in: switchAt + .milliseconds(200)..<switchAt + .milliseconds(1200))
        try controller.disconnectMicrophone()
        try controller.session.release(lease)
        return after - before
    }
}
