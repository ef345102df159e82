import ClassroomMeasurement
import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("RTC inputs")
struct AudioInputTests {
    init() throws { try EngineSupport.start() }

    @Test("the declared format is validated, and pushes that do not fit it are refused")
    func formats() throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        #expect(throws: EngineError.self) {
            try engine.addRTCInput(id: "bad", format: AudioFormat(format: .s16, rate: 48_000, channels: 6))
        }
        #expect(throws: EngineError.self) {
            try engine.addRTCInput(id: "bad", format: AudioFormat(format: .s16, rate: 48_000, channels: 1, interleaved: false))
        }
        let peer = try engine.addRTCInput(id: "rtc-peer", format: AudioFormat(format: .s16, rate: 16_000, channels: 2))
        #expect(throws: EngineError.self) { try engine.addRTCInput(id: "rtc-peer", format: peer.format) }
        do {
            try peer.push([Int16](repeating: 0, count: 321))
            Issue.record("an odd sample count for stereo must be refused")
        } catch {
            guard case .wrongSamples(let input, let why) = error else { Issue.record("\(error)"); return }
            #expect(input == "rtc-peer")
            #expect(why.contains("2-channel"))
        }
        #expect(throws: EngineError.self) { try peer.push([Float](repeating: 0, count: 320)) }
        #expect(try peer.push([Int16](repeating: 0, count: 320)) == .queued)
    }

    /// A started headless engine with one mono 48 kHz RTC input, "rtc-flood"; the caller stops it.
    private static func headlessEngineWithFeed() throws -> (AudioEngine, AudioInput) {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        return (engine, try engine.addRTCInput(id: "rtc-flood", format: AudioFormat(format: .s16, rate: 48_000, channels: 1)))
    }

    @Test("a full queue drops the oldest audio and says so")
    func boundedQueue() throws {
        let (engine, peer) = try Self.headlessEngineWithFeed()
        defer { engine.stop() }
        // 2 s of audio pushed at once, stamped back to back from now: the queue holds 200 ms. Stamped,
        // because unstamped pushes this far ahead of real time are re-anchored (the next test), and how
        // many of those the mixer takes before the queue fills was a race between two threads (61 to 180).
        let now = try #require(engine.runningTime)
        var results: [AudioInput.PushResult] = []
        for i in 0..<200 { results.append(try peer.push([Int16](repeating: 100, count: 480), timestamp: now + .milliseconds(10 * i))) }
        #expect(results.contains(.queuedDroppingOldest))
        #expect(peer.droppedPushes > 100)
        #expect(peer.queuedTime <= engine.configuration.inputQueue + .milliseconds(10))
    }

    @Test("a feed that pushed 10× faster than real time for a second is heard on time when it slows down; its queue stayed bounded and it said it dropped")
    func flood() async throws {
        let (engine, peer) = try Self.headlessEngineWithFeed()
        defer { engine.stop() }
        let capture = try OutputCapture(engine)
        let tone = (0..<480).map { Int16(8_000 * sin(Double($0) * 2 * .pi * 1_000 / 48_000)) }
        // `perTenMs` 10 ms frames every 10 ms of real time for a second, from a thread of its own at
        // the engine's real-time priority, as an RTC SDK delivers: the test's own tasks, under load,
        // woke late enough to leave gaps that the engine rightly played as silence.
        func pump(_ perTenMs: Int) -> (pushes: Int, late: Int) {
            let pushes = Atomic<Int>(0), refusal = Mutex<String?>(nil)
            let feeder = RealTimeFeeder(count: 100, realtimePriority: engine.configuration.realtimePriority) { _ in
                for _ in 0..<perTenMs {
                    do { try peer.push(tone); pushes.add(1, ordering: .relaxed) } catch { refusal.withLock { $0 = $0 ?? "\(error)" } }
                }
            }
            feeder.join()
            if let refused = refusal.withLock({ $0 }) { Issue.record("a push was refused: \(refused)") }
            return (pushes.load(ordering: .relaxed), feeder.lateTicks.load(ordering: .relaxed))
        }
        let flooded = pump(10).pushes
        #expect(peer.droppedPushes > flooded / 2, "\(peer.droppedPushes) of \(flooded) pushes dropped")
        #expect(peer.queuedTime <= engine.configuration.inputQueue + .milliseconds(10))
        // Then in real time: heard within the pipeline's latency, not after the 9 s the flood ran ahead.
        let slowed = try #require(engine.runningTime)
        let realTime = pump(1)
        let stopped = try #require(engine.runningTime)
        #expect(await capture.wait(until: stopped + .milliseconds(700)))
        let heard = capture.rms(in: slowed + .milliseconds(300)..<stopped)
        print("FIGURE real-time second after a flood: heard at \(heard) dB; \(realTime.late) of 100 pushes more than 10 ms late")
        #expect(heard > -16, "the real-time second after the flood was heard at \(heard) dB (the tone is -15.3 dB); \(realTime.late) of its 100 pushes were more than 10 ms late")
        #expect(capture.rms(in: stopped + .milliseconds(400)..<stopped + .milliseconds(700)) < -80)
    }

    @Test("an input removed while playing stops mixing and refuses pushes; a starving input never stalls the mix")
    func removalAndStarvation() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let starving = try engine.addRTCInput(id: "rtc-silent", format: format)
        try starving.push([Int16](repeating: 0, count: 480))   // one push, then nothing
        let talker = try engine.addRTCInput(id: "rtc-talker", format: format)
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: talker, format: format)
        let capture = try OutputCapture(engine)
        let start = try #require(engine.runningTime)
        #expect(await capture.wait(until: start + .seconds(1)))
        let heard = capture.rms(in: start + .milliseconds(400)..<start + .seconds(1))
        #expect(abs(heard - -23.01) < 0.3)                      // mixing went on despite the starving input

        try engine.removeInput(id: "rtc-talker")
        pump.stop()
        #expect(throws: EngineError.self) { try talker.push([Int16](repeating: 0, count: 480)) }
        #expect(talker.isRemoved)
        #expect(throws: EngineError.self) { try engine.removeInput(id: "rtc-talker") }
        let removedAt = try #require(engine.runningTime)
        #expect(await capture.wait(until: removedAt + .milliseconds(600)))
        #expect(capture.rms(in: removedAt + .milliseconds(300)..<removedAt + .milliseconds(600)) < -80)
        let continuity = capture.continuity()
        #expect(continuity.gaps == 0)
        #expect(engine.inputs.map(\.id) == ["rtc-silent"])
    }

    @Test("an input removed while its source still has audio to push ends quietly: no engine error (the start-up primer's end logged one in 1 of 8 starts)")
    func removalWhilePushing() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        let errors = Mutex<[String]>([])
        let levels = Atomic<Int>(0)
        let token = engine.observe { event in
            switch event {
            case .error(let element, let message, let debug): errors.withLock { $0.append("\(element): \(message) \(debug ?? "")") }
            case .level: levels.add(1, ordering: .relaxed)
            default: break
            }
        }
        try engine.start()
        defer { engine.stop(); _ = token }
        let format = EngineGraph.outputFormat
        let block = [Int16](repeating: 0, count: format.rate / 100 * format.channels)
        for _ in 0..<200 {
            // As the primer does: kept 20 ms and more ahead, so its source has audio to push when it goes.
            let input = try engine.addInput(id: "churn", kind: .effects, format: format)
            for _ in 0..<20 { _ = try input.push(block) }
            // And, as the primer, gone while pushing: once its source has handed the mixer a first block. At
            // real-time priority the source may have handed all 20 before the first look (CI: queued 0).
            let queued = input.queuedTime, flowing = ContinuousClock.now + .seconds(2)
            if queued > .zero {
                while input.queuedTime >= queued, ContinuousClock.now < flowing { try await Task.sleep(for: .milliseconds(1)) }
                #expect(input.queuedTime < queued)
            }
            // More for it to push as it goes: its real-time thread is busy with these at the removal.
            for _ in 0..<20 { _ = try input.push(block) }
            try engine.removeInput(id: "churn")
        }
        // A removed source has posted its error before its removal returned: a level message after it is the barrier.
        let seen = levels.load(ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(5)
        while levels.load(ordering: .relaxed) <= seen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(levels.load(ordering: .relaxed) > seen)
        let said = errors.withLock { $0 }
        print("FIGURE input removed while pushing, 200 times: \(said.count) engine errors \(said.first ?? "")")
        #expect(said.isEmpty, "\(said)")
    }
}
