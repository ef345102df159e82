import ClassroomMeasurement
import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

/// The engine's streaming threads run real-time (`RealtimeThreads`): the tests run as root, which
/// may always ask for it, so a refusal here is a defect, not the machine.
@Suite("Real-time streaming threads")
struct RealtimeThreadsTests {
    init() throws { try EngineSupport.start() }

    @Test("the mixer's thread and an input's thread mix and push at SCHED_RR 4; with realtimePriority nil at SCHED_OTHER")
    func mixerThreadIsRealtime() async throws {
        for priority in [Int32(4), nil] {
            var configuration = AudioEngine.Configuration()
            configuration.realtimePriority = priority
            let engine = try AudioEngine(output: .discard, configuration: configuration, logger: EngineSupport.logger)
            try engine.start()
            defer { engine.stop() }
            let input = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
            let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: input, format: EngineGraph.outputFormat)
            defer { pump.stop() }
            let seen = Mutex<[String: ThreadScheduling]>([:])
            let mixerProbe = try engine.mixer.staticPad("src").addProbe(.buffer) { _ in
                seen.withLock { $0["mixer"] = ThreadScheduling.current() }
                return .ok
            }
            // The input's appsrc pushes into the mixer from its own task.
            let inputProbes = engine.mixer.pads.filter { $0.direction == .sink }.map { pad in
                pad.addProbe(.buffer) { _ in
                    seen.withLock { $0["input \(pad.name)"] = ThreadScheduling.current() }
                    return .ok
                }
            }
            #expect(await ClassroomEngineTests.waitFor(timeout: .seconds(5)) { seen.withLock { $0.count } >= 2 })
            withExtendedLifetime((mixerProbe, inputProbes)) {}
            let threads = seen.withLock { $0 }
            print("FIGURE realtimePriority \(priority.map(String.init) ?? "nil"): \(threads.mapValues(\.description)), granted/refused \(engine.realtime.map { "\($0.counts)" } ?? "-")")
            for (name, scheduling) in threads {
                if let priority {
                    #expect(scheduling.isRoundRobin(at: priority), "the \(name)'s thread: \(scheduling)")
                } else {
                    #expect(scheduling.isNormal, "the \(name)'s thread: \(scheduling)")
                }
            }
            if let realtime = engine.realtime { #expect(realtime.counts.refused == 0) }
        }
    }

    @Test("a lesson's audio is pushed into the courseware input at SCHED_RR 4; its video branch stays at normal priority")
    func lessonAudioIsRealtime() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lesson = try LessonPlayer(uri: root.appendingPathComponent("samples/lesson.webm").absoluteString, courseware: courseware,
                                      video: .discard, videoDelay: engine.outputLatency, logger: EngineSupport.logger)
        defer { lesson.stop() }
        try lesson.preroll()
        let seen = Mutex<[String: ThreadScheduling]>([:])
        let probes = try [EngineGraph.Lesson.audioSink, EngineGraph.Lesson.videoSink].map { name in
            try #require(lesson.pipeline.element(named: name)).staticPad("sink").addProbe(.buffer) { _ in
                seen.withLock { $0[name] = ThreadScheduling.current() }
                return .ok
            }
        }
        try lesson.play()
        #expect(await ClassroomEngineTests.waitFor(timeout: .seconds(5)) { seen.withLock { $0.count } == 2 })
        withExtendedLifetime(probes) {}
        let threads = seen.withLock { $0 }
        print("FIGURE the lesson's threads: \(threads.mapValues(\.description))")
        let audio = try #require(threads[EngineGraph.Lesson.audioSink]), video = try #require(threads[EngineGraph.Lesson.videoSink])
        #expect(audio.isRoundRobin(at: 4), "the audio push: \(audio)")
        #expect(video.isNormal, "the video branch: \(video)")
    }

    @Test("on a sound server, libpulse's own thread in the process (pulsesink's main loop) runs at SCHED_RR 4 too",
          .enabled(if: EngineSupport.hasPulse))
    func soundServerClientThreadIsRealtime() async throws {
        let engine = try AudioEngine(output: .soundServer(device: nil), logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        #expect(await ClassroomEngineTests.waitFor(timeout: .seconds(5)) { Self.clientLoopsRealtime(RealtimeThreads.clientLoops()) },
                "libpulse's threads: \(RealtimeThreads.clientLoops())")
        print("FIGURE libpulse's threads on a sound-server output: \(RealtimeThreads.clientLoops())")
    }

    @Test("libpulse's loop, shared by every pulsesink of the process, stays real-time when one of them stops (pulsesink 1.26 says LEAVE on it)",
          .enabled(if: EngineSupport.hasPulse))
    func sharedClientLoopStaysRealtime() async throws {
        let playing = try AudioEngine(output: .soundServer(device: nil), logger: EngineSupport.logger)
        try playing.start()
        defer { playing.stop() }
        let stopping = try AudioEngine(output: .soundServer(device: nil), logger: EngineSupport.logger)
        try stopping.start()
        #expect(await ClassroomEngineTests.waitFor(timeout: .seconds(5)) { Self.clientLoopsRealtime(RealtimeThreads.clientLoops()) },
                "libpulse's threads with two outputs: \(RealtimeThreads.clientLoops())")
        stopping.stop()
        // The stop's stream status comes from the loop a moment later; whatever it does is done by then.
        try await Task.sleep(for: .milliseconds(500))
        let after = RealtimeThreads.clientLoops()
        print("FIGURE libpulse's threads after one of two outputs stopped: \(after)")
        #expect(Self.clientLoopsRealtime(after), "libpulse's threads while one output plays on: \(after)")
    }

    /// There is a libpulse loop, and every one is SCHED_RR.
    private static func clientLoopsRealtime(_ loops: [(thread: pid_t, policy: Int32)]) -> Bool {
        !loops.isEmpty && loops.allSatisfy { $0.policy == SCHED_RR }
    }
}
