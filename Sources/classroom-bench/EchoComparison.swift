import ClassroomEngine
import ClassroomMeasurement
import GStreamer
import Logging

/// ERLE for speech through a simulated echo path at several delays: the engine's voice and raw
/// profiles, and PulseAudio's module-echo-cancel (webrtc) on the same signals.
enum EchoComparison {
    static let engineMethod = """
        RTC feed: espeak-ng speech (12.5 s). The simulated echo path takes what the output renders, halves it (−6 dB) \
        and pushes it as the microphone with the time it would be captured (its running time + the 100 ms output latency \
        + the delay), in real time through the engine's microphone chain. ERLE = 10·log10(ΣE_mic / ΣE_uplink) over the \
        10 ms frames with far-end speech above −50 dBFS, from 2 s after the first (EchoPathMeasurement, as the engine tests).
        """
    static let pulseMethod = """
        The same speech and the same echo (delayed, −6 dB) played on the private PulseAudio server: speech into \
        module-echo-cancel aec_method=webrtc's sink, the echo into a null sink whose monitor is the canceller's source \
        master, both recorded; aec_args "\(PulseEchoCanceller.arguments)" (AEC, NS and HPF, no AGC: the voice \
        profile's features). ERLE = 10·log10(ΣE_mic / ΣE_processed) over the recording from 2 s after the echo starts. \
        PulseAudio estimates the alignment itself from its streams' latencies, so its figure varies from run to run.
        """

    static func rows(delays: [Int], pulseRuns: Int, logger: Logger) async -> [BenchmarkRow] {
        var pulse: [Int: Result<[Double], any Error>] = [:]
        do {
            let farEnd = try PulseEchoCanceller.decode(try SpeechSample.farEnd())
            for delay in delays {
                do {
                    var figures: [Double] = []
                    for _ in 0..<pulseRuns {
                        // A fresh canceller each run: it must converge from nothing, like the engine's.
                        let canceller = try PulseEchoCanceller()
                        defer { canceller.unload() }
                        figures.append(try await canceller.erle(farEnd: farEnd, echoDelay: .milliseconds(delay)))
                    }
                    pulse[delay] = .success(figures)
                } catch {
                    pulse[delay] = .failure(error)
                }
            }
        } catch {
            for delay in delays { pulse[delay] = .failure(error) }
        }
        var rows: [BenchmarkRow] = []
        for delay in delays {
            let pulseFigure: String
            switch pulse[delay] {
            case .success(let runs): pulseFigure = "PulseAudio module-echo-cancel (webrtc), same signals: \(formatted(runs.median, "dB"))"
            case .failure(let error): pulseFigure = "PulseAudio module-echo-cancel: not measured (\(error))"
            case nil: pulseFigure = "—"
            }
            rows.append(await engineRow(profile: "voice", processing: .voice, delay: delay, baseline: pulseFigure, goal: "≥ 30 dB",
                                        pass: { $0 >= 30 }, logger: logger))
            rows.append(await engineRow(profile: "raw", processing: .off, delay: delay, baseline: "0 dB: nothing processed",
                                        goal: "≈ 0 dB (|ERLE| < 0.5 dB)", pass: { abs($0) < 0.5 }, logger: logger))
        }
        for delay in delays {
            let measure = "ERLE, PulseAudio module-echo-cancel (webrtc), echo path \(delay) ms"
            switch pulse[delay] {
            case .success(let runs):
                rows.append(BenchmarkRow(measure: measure, value: runs.median, unit: "dB", baseline: "— (it is the baseline of the voice rows)",
                                         goal: "—", pass: nil, runs: runs.count,
                                         method: pulseMethod + " Median of fresh cancellers; runs: \(runs.map { formatted($0, "dB") }.joined(separator: ", "))."))
            case .failure(let error):
                rows.append(.notMeasured(measure, unit: "dB", baseline: "—", goal: "—", method: pulseMethod, error: error))
            case nil:
                break
            }
        }
        return rows
    }

    private static func engineRow(profile: String, processing: VoiceProcessing, delay: Int, baseline: String, goal: String,
                                  pass: (Double) -> Bool, logger: Logger) async -> BenchmarkRow {
        let measure = "ERLE, engine \(profile) profile, echo path \(delay) ms"
        do {
            let erle = try await EchoPathMeasurement.erle(processing: processing, echoDelay: .milliseconds(delay), settle: .seconds(2), logger: logger)
            return BenchmarkRow(measure: measure, value: erle, unit: "dB", baseline: baseline, goal: goal, pass: pass(erle), runs: 1, method: engineMethod)
        } catch {
            return .notMeasured(measure, unit: "dB", baseline: baseline, goal: goal, method: engineMethod, error: error)
        }
    }
}
