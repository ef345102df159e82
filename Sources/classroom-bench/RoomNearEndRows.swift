import ClassroomEngine
import ClassroomMeasurement
import GStreamer
import Logging

/// Noise suppression and gain control measured in the room rig, not just switched on (issue #11 item 5).
enum RoomNearEndRows {
    /// Room noise for the suppression row: well above the rig's usual −65 dBFS, a ventilated classroom.
    static let noiseDBFS = -45.0
    /// The quiet talker's active speech level.
    static let quietDBFS = -40.0
    /// The loud talker's: espeak-ng's own level, its peaks near −3 dBFS.
    static let loudDBFS = -18.0
    /// Where a talker should reach the uplink: ITU-T P.56's nominal active speech level (−26 dBov).
    static let targetDBFS = -26.0

    /// The voice profile with webrtcdsp's gain control instead of the uplink's level control, for comparison.
    static let withGainControl: VoiceProcessing = {
        var processing = VoiceProcessing.voice
        processing.gainControl = true
        processing.levelControl = false
        return processing
    }()

    /// The voice profile as it was before the level control (issue #23).
    static let withoutLevelControl: VoiceProcessing = {
        var processing = VoiceProcessing.voice
        processing.levelControl = false
        return processing
    }()

    static func rows(script: String, logger: Logger) async -> [BenchmarkRow] {
        [await noiseRow(script: script, logger: logger), await quietTalkerRow(script: script, logger: logger),
         await loudTalkerRow(script: script, logger: logger)]
    }

    private static func noiseRow(script: String, logger: Logger) async -> BenchmarkRow {
        let measure = "Noise suppression, engine voice profile, room noise alone"
        let method = EchoRoomComparison.roomMethod + """
             Here the teacher is silent and nobody talks: the room adds white noise at \(formatted(noiseDBFS, "dBFS")) to the \
            microphone. Reduction = 10·log10(ΣE_mic / ΣE_uplink) over every 10 ms frame from 3 s after the first. \
            The voice profile's noise suppression is webrtcdsp's level \(VoiceProcessing.voice.noiseSuppressionLevel.rawValue) on this platform \
            (\(Platform.current); WORKAROUNDS §13); \
            the raw profile passes it unchanged (bit-exact, measured elsewhere).
            """
        do {
            let noise = try await RoomNearEnd.noiseReduction(script: script, noiseDBFS: noiseDBFS, logger: logger)
            // The same room without the level control: tells webrtcdsp's suppression from a gain lifting what is left (#24: AEC3).
            let without = try? await RoomNearEnd.noiseReduction(script: script, noiseDBFS: noiseDBFS, processing: withoutLevelControl, logger: logger)
            return BenchmarkRow(measure: measure, value: noise.reduction, unit: "dB",
                                baseline: "noise on the microphone: \(formatted(noise.microphoneDBFS, "dBFS")); without the level control: "
                                    + (without.map { formatted($0.reduction, "dB") } ?? "not measured"),
                                goal: "≥ 15 dB", pass: noise.reduction >= 15, runs: 1, method: method)
        } catch {
            return .notMeasured(measure, unit: "dB", baseline: "—", goal: "≥ 15 dB", method: method, error: error)
        }
    }

    private static func talkerMethod(_ dBFS: Double) -> String {
        EchoRoomComparison.roomMethod + """
             Here the teacher is silent and the student (espeak-ng, about 8 s) speaks at \(formatted(dBFS, "dBFS")) active speech level \
            (RMS of the louder half of their 10 ms frames) 3 s in. Their speech is found on the uplink by correlation; the value is the \
            uplink's active speech level from 3 s into it to its end, target ITU-T P.56's nominal −26 dBov. The voice profile's level \
            control (after the canceller: up 6 dB/s, down 24 dB/s, 0 to +20 dB, adapting on speech frames 10 dB above the noise floor \
            while the far end is silent, a −1 dBFS peak limiter) does it; webrtcdsp's gain control stays off because it lifted residual \
            echo while the canceller converged (issue #11 item 3).
            """
    }

    private static func quietTalkerRow(script: String, logger: Logger) async -> BenchmarkRow {
        let measure = "Quiet talker on the uplink after 3 s, engine voice profile (\(formatted(quietDBFS, "dBFS")) active speech)"
        let goal = "within 3 dB of \(formatted(targetDBFS, "dBFS"))"
        let method = talkerMethod(quietDBFS) + " Baselines: the same run without the level control, and with webrtcdsp's gain control instead (adaptive digital, target 3 dBFS, compression 9 dB: its defaults)."
        do {
            let voice = try await RoomNearEnd.talker(script: script, talkerDBFS: quietDBFS, logger: logger)
            let without = try? await RoomNearEnd.talker(script: script, talkerDBFS: quietDBFS, processing: withoutLevelControl, logger: logger)
            let gained = try? await RoomNearEnd.talker(script: script, talkerDBFS: quietDBFS, processing: withGainControl, logger: logger)
            let baseline = "microphone \(formatted(voice.microphone, "dBFS")), gain \(formatted(voice.finalGain, "dB")) at the end; without the level control: "
                + (without.map { formatted($0.uplink, "dBFS") } ?? "not measured") + "; webrtcdsp's gain control instead: "
                + (gained.map { formatted($0.uplink, "dBFS") } ?? "not measured")
            return BenchmarkRow(measure: measure, value: voice.uplink, unit: "dBFS", baseline: baseline, goal: goal,
                                pass: abs(voice.uplink - targetDBFS) <= 3, runs: 3, method: method)
        } catch {
            return .notMeasured(measure, unit: "dBFS", baseline: "—", goal: goal, method: method, error: error)
        }
    }

    private static func loudTalkerRow(script: String, logger: Logger) async -> BenchmarkRow {
        let measure = "Loud talker on the uplink after 3 s, engine voice profile (\(formatted(loudDBFS, "dBFS")) active speech)"
        let goal = "not clipped, ≥ -30 dBFS"
        let method = talkerMethod(loudDBFS) + " Clipped: any uplink sample over the whole speech at full scale (32767)."
        do {
            let voice = try await RoomNearEnd.talker(script: script, talkerDBFS: loudDBFS, logger: logger)
            let baseline = "microphone \(formatted(voice.microphone, "dBFS")); uplink peak \(voice.uplinkPeak) of 32767; gain \(formatted(voice.finalGain, "dB")) at the end"
            return BenchmarkRow(measure: measure, value: voice.uplink, unit: "dBFS", baseline: baseline, goal: goal,
                                pass: voice.uplinkPeak < 32_767 && voice.uplink >= -30, runs: 1, method: method)
        } catch {
            return .notMeasured(measure, unit: "dBFS", baseline: "—", goal: goal, method: method, error: error)
        }
    }
}
