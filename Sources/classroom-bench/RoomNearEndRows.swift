import ClassroomEngine
import ClassroomMeasurement
import Logging

/// Noise suppression and gain control measured in the room rig, not just switched on (issue #11 item 5).
enum RoomNearEndRows {
    /// Room noise for the suppression row: well above the rig's usual −65 dBFS, a ventilated classroom.
    static let noiseDBFS = -45.0
    /// The quiet talker's active speech level.
    static let talkerDBFS = -40.0
    /// Where a talker should reach the uplink: ITU-T P.56's nominal active speech level (−26 dBov).
    static let targetDBFS = -26.0

    /// The voice profile with webrtcdsp's gain control switched on, for comparison.
    static let withGainControl: VoiceProcessing = {
        var processing = VoiceProcessing.voice
        processing.gainControl = true
        return processing
    }()

    static func rows(script: String, logger: Logger) async -> [BenchmarkRow] {
        [await noiseRow(script: script, logger: logger), await quietTalkerRow(script: script, logger: logger)]
    }

    private static func noiseRow(script: String, logger: Logger) async -> BenchmarkRow {
        let measure = "Noise suppression, engine voice profile, room noise alone"
        let method = EchoRoomComparison.roomMethod + """
             Here the teacher is silent and nobody talks: the room adds white noise at \(formatted(noiseDBFS, "dBFS")) to the \
            microphone. Reduction = 10·log10(ΣE_mic / ΣE_uplink) over every 10 ms frame from 3 s after the first. \
            The voice profile's noise suppression is webrtcdsp's level high (its default, moderate, took 12.3 dB off here); \
            the raw profile passes it unchanged (bit-exact, measured elsewhere).
            """
        do {
            let noise = try await RoomNearEnd.noiseReduction(script: script, noiseDBFS: noiseDBFS, logger: logger)
            return BenchmarkRow(measure: measure, value: noise.reduction, unit: "dB", baseline: "noise on the microphone: \(formatted(noise.microphoneDBFS, "dBFS"))",
                                goal: "≥ 15 dB", pass: noise.reduction >= 15, runs: 1, method: method)
        } catch {
            return .notMeasured(measure, unit: "dB", baseline: "—", goal: "≥ 15 dB", method: method, error: error)
        }
    }

    private static func quietTalkerRow(script: String, logger: Logger) async -> BenchmarkRow {
        let measure = "Quiet talker on the uplink, engine voice profile (\(formatted(talkerDBFS, "dBFS")) active speech)"
        let goal = "within 6 dB of \(formatted(targetDBFS, "dBFS"))"
        let method = EchoRoomComparison.roomMethod + """
             Here the teacher is silent and the student (espeak-ng) speaks at \(formatted(talkerDBFS, "dBFS")) active speech level \
            (RMS of the louder half of their 10 ms frames) 5 s in. Value: the uplink's active speech level over the 6 s from their first \
            frame on the microphone; target: ITU-T P.56's nominal −26 dBov. The voice profile keeps webrtcdsp's gain control off \
            because it lifted residual echo above the microphone while the canceller converged (issue #11 item 3); the baseline \
            is the same run with it on (adaptive digital, target 3 dBFS, compression 9 dB: its defaults).
            """
        do {
            let voice = try await RoomNearEnd.quietTalker(script: script, talkerDBFS: talkerDBFS, logger: logger)
            let gained = try? await RoomNearEnd.quietTalker(script: script, talkerDBFS: talkerDBFS, processing: withGainControl, logger: logger)
            let baseline = "microphone \(formatted(voice.microphone, "dBFS")); with gain control on: "
                + (gained.map { formatted($0.uplink, "dBFS") } ?? "not measured")
            return BenchmarkRow(measure: measure, value: voice.uplink, unit: "dBFS", baseline: baseline, goal: goal,
                                pass: abs(voice.uplink - targetDBFS) <= 6, runs: 2, method: method)
        } catch {
            return .notMeasured(measure, unit: "dBFS", baseline: "—", goal: goal, method: method, error: error)
        }
    }
}
