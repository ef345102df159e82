import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging

/// The echo canceller in a real-time room (scripts/room/room.py) at several unreported device
/// latencies, against PulseAudio's module-echo-cancel in the same room on the same speech (issue #11).
enum EchoRoomComparison {
    static let roomMethod = """
        The room rig (scripts/room/room.py): what the speaker sink plays is captured, convolved with a classroom impulse \
        response (direct path at 35 cm, the six first-order images of a 7×6×3 m room, an RT60 0.4 s tail), −65 dBFS noise \
        added, and played into a microphone null sink at capture time + the extra latency + the rig's own (a 40 ms floor \
        plus the null sinks' buffering, 34–57 ms measured): timestamps hold it, so it does not drift. Far end: espeak-ng \
        speech (12.5 s) as an RTC feed; microphone: the sink's monitor; voice profile; public API only.
        """

    static func rows(delays: [Int], script: String, logger: Logger) async -> [BenchmarkRow] {
        var rows: [BenchmarkRow] = []
        for delay in delays {
            let pulse: String
            do {
                let erle = try await PulseRoomCanceller.erle(script: script, delay: delay)
                pulse = "PulseAudio module-echo-cancel (webrtc), same room and speech: \(formatted(erle, "dB"))"
            } catch {
                pulse = "PulseAudio module-echo-cancel: not measured (\(error))"
            }
            rows += await engineRows(delay: delay, script: script, pulse: pulse, logger: logger)
        }
        let quality = SpeechQuality(root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        for delay in doubleTalkDelays { rows += await doubleTalkRows(delay: delay, script: script, quality: quality, logger: logger) }
        return rows + (await RoomNearEndRows.rows(script: script, logger: logger)) + (await SecondRoomRows.rows(script: script, logger: logger))
    }

    /// Where the estimator's CPU is reported (it does the same work at every delay).
    static let estimatorCostDelay = 150

    /// #24: WebRTC's AEC3, offline on this room's signals sample-aligned, scores 1.12–1.18 (the raw microphone
    /// 1.19), so 2.0 was out of any canceller's reach here; the goal is AEC3's figure in the same room,
    /// judged where both platforms run (`--beside`, PlatformComparison).
    static let pesqGoal = "≥ AEC3's figure in the same room (judged beside Debian 13)"

    /// Where the student's double talk is measured (two runs each).
    static let doubleTalkDelays = [0, 150]

    private static func doubleTalkRows(delay: Int, script: String, quality: SpeechQuality?, logger: Logger) async -> [BenchmarkRow] {
        let measure = "Near end kept in double talk, engine voice profile, room, \(delay) ms unreported latency"
        let pesqMeasure = "PESQ-WB of the student in double talk, engine voice profile, room, \(delay) ms unreported latency"
        let method = roomMethod + """
             The student (espeak-ng, another voice, about 4 s) speaks into the room 8 s in, while the teacher is still talking, \
            and once with the teacher silent; kept = 10·log10(E_uplink with both / E_uplink student alone) over the student's \
            span (where the microphone hears them alone, ±0.5 s), residual echo included (ITU-T P.340 type 2a asks ≥ −6 dB).
            """
        let pesqMethod = roomMethod + """
             The same two runs: PESQ-WB (ITU-T P.862.2, the pesq package in .venv, both signals resampled to 16 kHz) of the uplink \
            over the student's span against the student's clean speech as the room adds it (no room response, no noise).
            """
        let talk: RoomNearEnd.DoubleTalk
        do {
            talk = try await RoomNearEnd.doubleTalk(script: script, delay: delay, logger: logger)
        } catch {
            return [.notMeasured(measure, unit: "dB", baseline: "—", goal: "≥ −6 dB", method: method, error: error),
                    .notMeasured(pesqMeasure, unit: "MOS", baseline: "—", goal: pesqGoal, method: pesqMethod, error: error)]
        }
        let beforeStudent = talk.both.path.windowERLE.prefix(14).suffix(8)   // 500 ms windows from 3 s to 7 s: converged, the student not yet in
        let kept = BenchmarkRow(measure: measure, value: talk.kept, unit: "dB",
                                baseline: "ERLE before the student spoke: \(beforeStudent.map { String(Int($0.rounded())) }.joined(separator: " ")) dB per 500 ms",
                                goal: "≥ −6 dB", pass: talk.kept >= -6, runs: 2, method: method)
        do {
            guard let quality else { throw BenchError("no .venv with pesq: run scripts/python-venv.sh (make bench does)") }
            let scores = try quality.pesqWideband(reference: talk.reference, degraded: [talk.uplink(withTeacher: true), talk.uplink(withTeacher: false)], rate: 48_000)
            return [kept, BenchmarkRow(measure: pesqMeasure, value: scores[0], unit: "MOS", baseline: "the student alone, same room: \(formatted(scores[1], "MOS"))",
                                       goal: pesqGoal, pass: nil, runs: 2, method: pesqMethod)]
        } catch {
            return [kept, .notMeasured(pesqMeasure, unit: "MOS", baseline: "—", goal: pesqGoal, method: pesqMethod, error: error)]
        }
    }

    private static func engineRows(delay: Int, script: String, pulse: String, logger: Logger) async -> [BenchmarkRow] {
        let where_ = "room, \(delay) ms unreported latency"
        let erleMeasure = "ERLE after 8 s, engine voice profile, \(where_)"
        let method = roomMethod + " ERLE = 10·log10(ΣE_mic / ΣE_uplink) over the 10 ms frames with echo above −50 dBFS, from 8 s after the first."
        do {
            let result = try await RoomEchoMeasurement.run(script: script, delay: delay, logger: logger)
            let windows = result.path.windowERLE.map { String(Int($0.rounded())) }.joined(separator: " ")
            var rows = [
                BenchmarkRow(measure: erleMeasure, value: result.path.erle, unit: "dB", baseline: pulse, goal: "≥ 30 dB", pass: result.path.erle >= 30, runs: 1,
                             method: method + " 500 ms windows from the first: \(windows) dB. The voice profile's level control is on; its largest gain over the run: \(formatted(result.gains.map(\.gain).max() ?? 0, "dB")) (frozen while the far end may be heard)."),
                BenchmarkRow(measure: "Convergence, \(where_)", value: result.convergence, unit: "s", baseline: "—", goal: "≤ 5 s",
                             pass: result.convergence.map { $0 <= 5 } ?? false, runs: 1,
                             method: roomMethod + " From the first echo until every later 500 ms window cancels ≥ 20 dB (nil: never)."),
                BenchmarkRow(measure: "Echo-path estimate error, \(where_)", value: result.estimateError, unit: "ms",
                             baseline: "estimate \(result.path.estimate.map { "\($0.delay)" } ?? "none"), measured path \(result.truth.map { "\($0)" } ?? "none")",
                             goal: "≤ 10 ms", pass: result.estimateError.map { $0 <= 10 } ?? false, runs: 1,
                             method: roomMethod + " The path measured after the run: the peak of the plain cross-correlation of the far end (by play time) and the microphone (by capture time) over the whole run at 8 kHz; the estimate is the engine's GCC-PHAT estimator's, applied \(result.path.estimateAfter.map { String(format: "%.1f s", $0) } ?? "never") after the first microphone frame."),
            ]
            rows.append(BenchmarkRow(measure: "Uplink added latency (99th percentile), \(where_)", value: Double(result.path.uplinkDelay99.nanoseconds) / 1e6, unit: "ms",
                                     baseline: "maximum \(result.path.maximumUplinkDelay)", goal: "≤ 20 ms", pass: result.path.uplinkDelay99 <= .milliseconds(20), runs: result.path.uplinkDelays.count,
                                     method: roomMethod + " From each uplink frame's capture timestamp to its callback (the engine's running time then)."))
            if delay == estimatorCostDelay {
                rows.append(BenchmarkRow(measure: "CPU of the echo-path estimator, \(where_)", value: result.estimatorCPUShare * 100, unit: "% of a core",
                                         baseline: "—", goal: "≤ 1 %", pass: result.estimatorCPUShare <= 0.01, runs: 1,
                                         method: roomMethod + " The estimator's own thread CPU time (CLOCK_THREAD_CPUTIME_ID around its two streaming-thread taps and every analysis: GCC-PHAT over 1 s against 620 ms of lags at 8 kHz, twice a second) over the run's wall time."))
            }
            return rows
        } catch {
            return [.notMeasured(erleMeasure, unit: "dB", baseline: pulse, goal: "≥ 30 dB", method: method, error: error)]
        }
    }
}

/// PulseAudio's own canceller in the same room: the far end into module-echo-cancel's sink, whose
/// master is the room's speaker; the room plays into a microphone sink whose monitor is the
/// canceller's source master; the microphone and the processed source are recorded side by side.
enum PulseRoomCanceller {
    static func erle(script: String, delay: Int) async throws -> Double {
        let tag = UInt32.random(in: 0...UInt32.max)
        let speaker = "bench_room_speaker_\(tag)", sink = "bench_room_aec_sink_\(tag)", source = "bench_room_aec_source_\(tag)"
        let speakerModule = try PulseAudioControl.loadNullSink(speaker)
        defer { PulseAudioControl.unload(speakerModule) }
        let room = try await RoomRig.start(script: script, speaker: speaker, delay: delay, seconds: 30)
        defer { room.stop() }
        let canceller = try PulseAudioControl.pactl("load-module", "module-echo-cancel", "aec_method=webrtc",
                                                    "source_master=\(room.microphone)", "sink_master=\(speaker)",
                                                    "source_name=\(source)", "sink_name=\(sink)", "aec_args=\"\(PulseEchoCanceller.arguments)\"")
        defer { PulseAudioControl.unload(canceller) }
        let farEnd = try PulseEchoCanceller.decode(try SpeechSample.farEnd())
        return try await PulseEchoCanceller.erle(playing: [(sink, farEnd)], processed: source, microphone: room.microphone, settle: .seconds(8))
    }
}
