import ClassroomEngine
import ClassroomMeasurement
import GStreamer
import Logging

/// Switch latency through the session: connectMicrophone() (the voiceCall lease) → the first
/// processed 10 ms frame handed to the uplink callback.
enum SwitchLatencyMeasurement {
    static let measure = "Switch latency: mic-connect request → first processed uplink frame (session controller)"
    static let baseline = "iOS: every microphone switch is a hardware call with \"a delay of a few milliseconds\" (reference 004); the RTC SDK destroys and re-creates its audio unit (reference 000); no figure"
    static let goal = "≤ 20 ms"

    static func rows(runs: Int, logger: Logger) async -> [BenchmarkRow] {
        let method = """
            SessionController (headless output) with a pushed microphone: a feeder thread delivers a 10 ms frame every 10 ms \
            (timestamped with the engine's running time), as a capture device delivers periods, into whatever microphone chain \
            exists. CLOCK_MONOTONIC at the connectMicrophone() call (lease → resolved voice profile → chain built and started) \
            vs at the first processed frame's uplink callback; disconnect, 100 ms, again. Up to 10 ms of each figure is the wait \
            for the next period, and 10 ms is the engine's echo reference wait (AudioEngine.Configuration.echoReferenceWait): \
            a frame is processed once it has been wholly captured, as a live microphone delivers it, when the echo probe \
            holds the far end it needs (52 ms before the echo-path estimator moved the probe's window). Opening a real \
            capture device is not included (a PulseAudio null-sink monitor as the \
            microphone was measured here to take 2 s for its first buffer while the sink is idle — a property of the virtual \
            device, so it is not used). Median of the runs.
            """
        do {
            let latch = MomentLatch()
            let controller = try SessionController(output: .discard, microphone: .fixed(.pushed), logger: logger) { _ in latch.mark() }
            try controller.start()
            defer { controller.stop() }
            let engine = controller.engine
            let silence = [Int16](repeating: 0, count: 480)
            let feeder = RealTimeFeeder { _ in
                guard let microphone = engine.uplink?.pushedInput, let now = engine.runningTime else { return }
                _ = try? microphone.push(silence, pts: now)
            }
            defer { feeder.stop() }
            var latencies: [Double] = []
            var missed = 0
            for _ in 0..<runs {
                latch.arm()
                let requested = ProcessMeters.monotonicNanoseconds()
                try controller.connectMicrophone()
                if let first = await latch.wait(timeout: .seconds(2)) {
                    latencies.append(Double(first - requested) / 1e6)
                } else {
                    missed += 1
                }
                try controller.disconnectMicrophone()
                try await Task.sleep(for: .milliseconds(100))
            }
            guard !latencies.isEmpty else { throw BenchError("no uplink frame came within 2 s of any of \(runs) connects") }
            let median = latencies.median
            let detail = " Min \(formatted(latencies.min() ?? .nan, "ms")), p90 \(formatted(latencies.percentile(0.9), "ms")), max \(formatted(latencies.max() ?? .nan, "ms"))\(missed > 0 ? ", \(missed) connects without a frame within 2 s" : "")."
            return [BenchmarkRow(measure: measure, value: median, unit: "ms", baseline: baseline, goal: goal,
                                 pass: missed == 0 && median <= 20, runs: runs, method: method + detail)]
        } catch {
            return [.notMeasured(measure, unit: "ms", baseline: baseline, goal: goal, method: method, error: error)]
        }
    }
}
