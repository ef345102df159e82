import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Echo cancellation through the engine")
struct EchoCancellationTests {
    init() throws { try EngineSupport.start() }

    /// Speech from espeak-ng as the far end, written once per run.
    private static func farEndSpeech() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-far-end-\(getpid()).wav").path
        if FileManager.default.fileExists(atPath: path) { return path }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", "en-us", "-s", "150", "-w", path,
                             "Good morning everyone. Today we are going to read the story about the water cycle. The sun warms the sea and the water rises into the sky. Please listen carefully and repeat after me."]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw EngineTestFailure("espeak-ng failed") }
        return path
    }

    /// Plays speech as an RTC feed; the "microphone" hears what the output renders, −6 dB and
    /// `echoDelay` later: a buffer at running time P plays at P + the output latency, so its echo
    /// is captured at P + latency + echoDelay, and the pushed frame carries that time. Returns
    /// the ERLE, 10·log10(P_mic / P_uplink), over the frames with far-end speech after `settle`.
    private func measureERLE(processing: VoiceProcessing, echoDelay: ClockTime, settle: ClockTime,
                             configuration: AudioEngine.Configuration = .init()) async throws -> Double {
        let engine = try AudioEngine(output: .discard, configuration: configuration, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let rtcFormat = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let farEnd = try engine.addRTCInput(id: "rtc-teacher", format: rtcFormat)
        let uplinkFrames = Locked<[ClockTime: Double]>([:])    // pts → energy
        let micFrames = Locked<[ClockTime: Double]>([:])
        let uplink = try engine.connectMicrophone(.pushed, processing: processing) { frame in
            guard let pts = frame.timestamp else { return }
            let energy = frame.samples.reduce(0.0) { $0 + Double($1) * Double($1) }
            uplinkFrames.withLock { $0[pts] = energy }
        }
        let mic = try #require(uplink.pushedInput)
        let shift = engine.outputLatency + echoDelay
        let tap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts else { return }
            let stereo = buffer.int16Samples()
            var mono = [Int16](repeating: 0, count: stereo.count / 2)
            for index in mono.indices { mono[index] = Int16(Double(stereo[index * 2]) * 0.5) }  // −6 dB
            let energy = mono.reduce(0.0) { $0 + Double($1) * Double($1) }
            micFrames.withLock { $0[pts + shift] = energy }
            _ = try? mic.push(mono, pts: pts + shift)
        }
        let speech = try Self.farEndSpeech()
        let pump = try SignalPump("filesrc location=\(speech) ! wavparse", into: farEnd, format: rtcFormat)
        defer { pump.stop() }
        // Run through the speech while frames come back.
        let deadline = ContinuousClock.now + .seconds(30)
        while !pump.finished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(400))
        tap?.remove()

        let micEnergy = micFrames.withLock { $0 }
        let outEnergy = uplinkFrames.withLock { $0 }
        guard let first = micEnergy.keys.min() else { throw EngineTestFailure("no microphone frames") }
        var inSum = 0.0, outSum = 0.0, frames = 0
        for (pts, energy) in micEnergy where pts >= first + settle && energy > 480 * 100 * 100 {   // far end active (> −50 dBFS)
            guard let out = outEnergy[pts] else { continue }
            inSum += energy; outSum += out; frames += 1
        }
        guard frames > 100 else { throw EngineTestFailure("only \(frames) frames with far-end speech matched") }
        return 10 * log10(inSum / max(outSum, 1))
    }

    @Test("the voice profile removes at least 20 dB of echo after 2 s")
    func voiceProfileCancelsEcho() async throws {
        let erle = try await measureERLE(processing: .voice, echoDelay: .milliseconds(50), settle: .seconds(2))
        print("FIGURE ERLE voice profile, 50 ms echo path, -6 dB: \(erle) dB")
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
