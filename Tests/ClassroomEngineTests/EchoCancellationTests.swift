import ClassroomMeasurement
import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Echo cancellation through the engine")
struct EchoCancellationTests {
    init() throws { try EngineSupport.start() }

    private func measureERLE(processing: VoiceProcessing, echoDelay: ClockTime, settle: ClockTime) async throws -> Double {
        try await EchoPathMeasurement.erle(processing: processing, echoDelay: echoDelay, settle: settle, logger: EngineSupport.logger)
    }

    /// 50 ms is the issue's case; 10 and 30 ms are the benchmark's other rows. With the probe's own
    /// 50 ms lookahead and no wait, nothing was cancelled (−9 dB at 10 and 50 ms: the AGC lifted the echo).
    @Test("the voice profile removes at least 20 dB of echo after 2 s, for echo paths of 10 to 50 ms", arguments: [10, 30, 50])
    func voiceProfileCancelsEcho(echoPathMilliseconds: Int) async throws {
        let erle = try await measureERLE(processing: .voice, echoDelay: .milliseconds(echoPathMilliseconds), settle: .seconds(2))
        print("FIGURE ERLE voice profile, \(echoPathMilliseconds) ms echo path, -6 dB: \(erle) dB")
        #expect(erle >= 20)
    }

    /// An echo path the devices did not report: before the estimator it was −8 dB at 150 ms.
    @Test("an unreported 150 ms echo path is found within 5 s, cancelled by 30 dB, never amplified, no wait beyond the 10 ms frame on the uplink")
    func findsUnreportedEchoPath() async throws {
        let result = try await EchoPathMeasurement.run(processing: .voice, echoDelay: .milliseconds(150), settle: .seconds(6),
                                                       logger: EngineSupport.logger)
        print("FIGURE echo path 150 ms: estimate \(String(describing: result.estimate)) after \(String(describing: result.estimateAfter)) s, "
              + "ERLE \(result.erle) dB, worst 500 ms window \(result.minimumWindowERLE) dB, uplink delay median \(result.uplinkDelayMedian), p99 \(result.uplinkDelay99), max \(result.maximumUplinkDelay), "
              + "lost microphone buffers \(result.lostMicrophoneBuffers ?? 0), "
              + "waited before the DSP median \(result.framing?.delayMedian.description ?? "-"), part-frames \(result.framing?.partialFrames.description ?? "-"), part-pushes \(result.framing?.partPushes.description ?? "-")")
        let estimate = try #require(result.estimate)
        #expect(abs(Double(estimate.delay.nanoseconds) / 1e6 - 150) <= 10)
        #expect((result.estimateAfter ?? .infinity) <= 5)
        #expect(result.erle >= 30)
        #expect(result.minimumWindowERLE >= 0)
        // The median: a fixed wait (52 ms before the estimator) moves every frame, a busy machine only
        // the tail; p99 read 20.8 ms on CI's loaded machine, so the 20 ms tail goal is the bench's row.
        // Where a typical frame would lose its 10 ms if this failed (#21 item 6, median 20.2 ms once in about
        // 9 CI runs, WORKAROUNDS §37): waiting before the DSP, or in it behind a part-frame.
        let framing = try #require(result.framing)
        #expect(result.uplinkDelayMedian <= .milliseconds(15),
                "waited before the DSP median \(framing.delayMedian), part-frames \(framing.partialFrames), part-pushes \(framing.partPushes)")
        #expect(framing.partialFrames == 0, "the DSP was handed \(framing.partialFrames) frames that were not 10 ms")
    }

    @Test("the raw profile leaves the echo as it is")
    func rawProfilePassesEcho() async throws {
        let erle = try await measureERLE(processing: .off, echoDelay: .milliseconds(50), settle: .seconds(2))
        print("FIGURE ERLE raw profile: \(erle) dB")
        #expect(abs(erle) < 0.5)
    }
}

struct EngineTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
