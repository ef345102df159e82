import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// Profile switches restart the DSP on the streaming thread, before the next frame reaches it.
@Suite("Profile switches of the uplink")
struct UplinkSwitchTests {
    init() throws { try EngineSupport.start() }

    private static let sine = (0..<480).map { Int16(3_000 * sin(2 * Double.pi * 300 * Double($0) / 48_000)) }

    @Test("the uplink keeps flowing through 40 profile switches while latency queries cross the chain")
    func switchesBesideLatencyQueries() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let frames = Locked(0)
        let uplink = try engine.connectMicrophone(.pushed, processing: .voice) { _ in frames.withLock { $0 += 1 } }
        let microphone = try #require(uplink.pushedInput)
        let origin = try #require(engine.runningTime)
        let stop = Locked(false)
        let feeder = Thread {
            var index = 0
            while !stop.withLock({ $0 }) {
                _ = try? microphone.push(Self.sine, pts: origin + .milliseconds(10 * index))
                index += 1
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        // What the engine does on every LATENCY message: a query that travels up the microphone chain.
        let querier = Thread {
            while !stop.withLock({ $0 }) { _ = engine.pipeline.recalculateLatency() }
        }
        feeder.start()
        querier.start()
        defer { stop.withLock { $0 = true } }
        for cycle in 0..<40 {
            try await Task.sleep(for: .milliseconds(50))
            try uplink.reconfigure([VoiceProcessing.off, .voice][cycle % 2])
        }
        let afterSwitches = frames.withLock { $0 }
        try await Task.sleep(for: .milliseconds(500))
        let halfSecondLater = frames.withLock { $0 }
        print("FIGURE uplink after 40 switches beside latency queries: \(afterSwitches) frames, \(halfSecondLater - afterSwitches) in the next 500 ms")
        // Before the switch ran on the streaming thread, 3 runs in 5 stopped here for good (the source paused on FLUSHING).
        #expect(halfSecondLater - afterSwitches >= 30)
        #expect(afterSwitches >= 150)
    }

    @Test("a switch asked for before the first frame returns at once and is in force for that frame")
    func switchBeforeAnyFrame() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let frames = Locked(0)
        let uplink = try engine.connectMicrophone(.pushed, processing: .voice) { _ in frames.withLock { $0 += 1 } }
        let microphone = try #require(uplink.pushedInput)
        let asked = ContinuousClock.now
        try uplink.reconfigure(.off)
        let took = ContinuousClock.now - asked
        #expect(took < .seconds(1))
        #expect(uplink.voiceProcessing == .off)
        #expect(try uplink.dsp.bool("echo-cancel") == true)
        let origin = try #require(engine.runningTime)
        for index in 0..<20 { _ = try microphone.push(Self.sine, pts: origin + .milliseconds(10 * index)) }
        #expect(await waitFor { frames.withLock { $0 } >= 10 })
        print("FIGURE switch before the first frame: returned after \(took), echo-cancel \(try uplink.dsp.bool("echo-cancel")) once \(frames.withLock { $0 }) frames flowed")
        #expect(try uplink.dsp.bool("echo-cancel") == false)
    }
}
