import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging

/// Development (`--only echo-tuning`): what each webrtcdsp knob does to the student in double talk
/// and to room noise (issue #11 item 4: "try the suppression levels, the extended filter …"). Its
/// figures chose the voice profile's settings; VoiceProcessing.voice records them.
enum EchoTuningSweep {
    static let delay = 150

    static func rows(script: String, logger: Logger) async -> [BenchmarkRow] {
        let quality = SpeechQuality(root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        var rows: [BenchmarkRow] = []
        // AEC1's suppression levels and extended filter; AEC3's webrtcdsp ignores both (WORKAROUNDS §13),
        // so there the sweep has only what acts: the profile itself and the profile without noise suppression.
        var variants: [VoiceProcessing] = []
        if Platform.current.echoCanceller != .aec3 {
            variants = VoiceProcessing.EchoSuppression.allCases.map { level in
                var processing = VoiceProcessing.voice
                processing.echoSuppression = level
                return processing
            }
            var short = VoiceProcessing.voice
            short.extendedFilter = false
            variants.append(short)
        } else {
            variants.append(VoiceProcessing.voice)
        }
        var noNoiseSuppression = VoiceProcessing.voice
        noNoiseSuppression.noiseSuppression = false
        variants.append(noNoiseSuppression)
        for processing in variants {
            let measure = "double talk at \(delay) ms, \(processing)\(processing.extendedFilter ? "" : ", no extended filter")"
            do {
                let talk = try await RoomNearEnd.doubleTalk(script: script, delay: delay, processing: processing, logger: logger)
                let scores = try quality?.pesqWideband(reference: talk.reference, degraded: [talk.uplink(withTeacher: true), talk.uplink(withTeacher: false)], rate: 48_000)
                let erle = talk.both.path.windowERLE.prefix(14).suffix(8)
                rows.append(BenchmarkRow(measure: measure, value: talk.kept, unit: "dB kept",
                                         baseline: "PESQ-WB \(scores.map { "\(formatted($0[0], "")) (alone \(formatted($0[1], "")))" } ?? "—"); ERLE \(erle.map { String(Int($0.rounded())) }.joined(separator: " "))",
                                         goal: "—", pass: nil, runs: 2, method: ""))
            } catch {
                rows.append(.notMeasured(measure, unit: "dB kept", baseline: "—", goal: "—", method: "", error: error))
            }
        }
        for level in VoiceProcessing.NoiseSuppressionLevel.allCases {
            var processing = VoiceProcessing.voice
            processing.noiseSuppressionLevel = level
            let measure = "room noise at \(RoomNearEndRows.noiseDBFS) dBFS, \(processing)"
            do {
                let noise = try await RoomNearEnd.noiseReduction(script: script, noiseDBFS: RoomNearEndRows.noiseDBFS, processing: processing, logger: logger)
                rows.append(BenchmarkRow(measure: measure, value: noise.reduction, unit: "dB", baseline: "mic \(formatted(noise.microphoneDBFS, "dBFS"))",
                                         goal: "≥ 15 dB", pass: noise.reduction >= 15, runs: 1, method: ""))
            } catch {
                rows.append(.notMeasured(measure, unit: "dB", baseline: "—", goal: "≥ 15 dB", method: "", error: error))
            }
        }
        return rows
    }
}
