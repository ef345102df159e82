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

    /// 50 ms is the case; 10 and 30 ms are the benchmark's other rows. With the probe's own
    /// 50 ms lookahead and no wait, nothing was cancelled (−9 dB at 10 and 50 ms: the AGC lifted the echo).
    @Test("the voice profile removes at least 20 dB of echo after 2 s, for echo paths of 10 to 50 ms", arguments: [10, 30, 50])
    func voiceProfileCancelsEcho(echoPathMilliseconds: Int) async throws {
        let erle = try await measureERLE(processing: .voice, echoDelay: .milliseconds(echoPathMilliseconds), settle: .seconds(2))
        print("FIGURE ERLE voice profile, \(echoPathMilliseconds) ms echo path, -6 dB: \(erle) dB")
        #expect(erle >= 20)
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
