import ClassroomMeasurement
import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

/// The echo canceller in a room: the engine plays into the "speaker" null sink, `scripts/room/room.py`
/// convolves that sink's monitor with a classroom impulse response in real time, adds noise and a
/// device latency nobody reports, and plays it into a second null sink whose monitor is the engine's microphone.
@Suite("Echo cancellation in a real-time room", .enabled(if: EngineSupport.hasPulse, "needs the private PulseAudio of make test"))
struct RoomEchoTests {
    init() throws { try EngineSupport.start() }

    @Test("an unreported 150 ms device latency in a room: found, cancelled by 30 dB after convergence, never amplified")
    func roomWithUnreportedLatency() async throws {
        let micSink = "room_mic_\(UInt32.random(in: 0...UInt32.max))"
        let module = try PulseAudioControl.loadNullSink(micSink)
        defer { PulseAudioControl.unload(module) }
        let engine = try AudioEngine(output: .soundServer(device: "speaker"), logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try engine.addRTCInput(id: "rtc-teacher", format: format)

        let room = Process()
        room.executableURL = URL(fileURLWithPath: "/usr/bin/python3")   // Debian's, with python3-gi, numpy and scipy from scripts/setup.sh
        room.arguments = [Self.roomScript, "--source", "speaker.monitor", "--sink", micSink, "--delay-ms", "150", "--seconds", "40"]
        try room.run()
        defer { kill(room.processIdentifier, SIGKILL); room.waitUntilExit() }   // SIGKILL: children inherit the test process's blocked SIGTERM

        let energies = Mutex<(mic: [ClockTime: Double], out: [ClockTime: Double])>(([:], [:]))
        let uplink = try engine.connectMicrophone(.device("\(micSink).monitor"), processing: .voice) { frame in
            guard let pts = frame.timestamp else { return }
            let energy = frame.samples.reduce(0.0) { $0 + Double($1) * Double($1) }
            energies.withLock { $0.out[pts] = energy }
        }
        // What the microphone captured, before the DSP and its offset: capture timestamps.
        let micTap = try uplink.split.staticPad("src").addProbe(.buffer) { info in
            if let buffer = info.buffer, let pts = buffer.pts {
                let energy = buffer.int16Samples().reduce(0.0) { $0 + Double($1) * Double($1) }
                energies.withLock { $0.mic[pts] = energy }
            }
            return .ok
        }
        defer { micTap?.remove() }
        let started = ContinuousClock.now
        let pump = try SignalPump("filesrc location=\(try SpeechSample.farEnd()) ! wavparse", into: teacher, format: format)
        defer { pump.stop() }
        let found = Mutex<[(Duration, EchoPathEstimate)]>([])
        let watch = engine.observeEchoPath { estimate in found.withLock { $0.append((ContinuousClock.now - started, estimate)) } }
        defer { watch.cancel() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !pump.finished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(500))

        let (mic, out) = energies.withLock { $0 }
        let first = try #require(mic.keys.min())
        let settled = first + .seconds(8)
        var windows: [Int: (Double, Double)] = [:]
        var inSum = 0.0, outSum = 0.0
        for (pts, energy) in mic where energy > 480 * 100 * 100 {
            guard let processed = out[pts] else { continue }
            windows[Int((pts.nanoseconds - first.nanoseconds) / 500_000_000), default: (0, 0)].0 += energy
            windows[Int((pts.nanoseconds - first.nanoseconds) / 500_000_000), default: (0, 0)].1 += processed
            if pts >= settled { inSum += energy; outSum += processed }
        }
        let windowERLE = windows.keys.sorted().compactMap { key in windows[key].map { 10 * log10($0.0 / max($0.1, 1)) } }
        let erle = 10 * log10(inSum / max(outSum, 1))
        print("FIGURE room, 150 ms unreported: estimate \(String(describing: engine.echoPath)) (applied: \(found.withLock { $0 }.map { "\($0.0): \($0.1)" })), "
              + "ERLE after 8 s \(erle) dB, windows \(windowERLE.map { Int($0.rounded()) })")
        let estimate = try #require(engine.echoPath)
        // The rig plays each block at its capture time + 150 ms + its 40 ms floor; the sound server's
        // null sinks and monitors add their buffering (79–108 ms measured over 6 runs, with and without
        // load). Exact accuracy is asserted where the path is known (EchoCancellationTests, EchoPathEstimatorTests).
        #expect(estimate.delay >= .milliseconds(190) && estimate.delay <= .milliseconds(340))
        #expect(erle >= 30)
        #expect((windowERLE.min() ?? -1) >= 0)
    }

    static var roomScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/room/room.py").path
    }
}
