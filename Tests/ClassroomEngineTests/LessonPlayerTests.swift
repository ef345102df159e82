import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Lesson player")
struct LessonPlayerTests {
    init() throws { try EngineSupport.start() }

    private static var lessonURI: String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("samples/lesson.webm").absoluteString
    }


    @Test("the lesson's audio reaches the output through the courseware input; pausing and seeking never stop RTC")
    func playPauseSeek() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let rtcFormat = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try engine.addRTCInput(id: "rtc-teacher", format: rtcFormat)
        let rtc = try SignalPump("audiotestsrc is-live=true wave=sine freq=1000 volume=0.02 samplesperbuffer=480", into: teacher, format: rtcFormat)
        defer { rtc.stop() }
        let lesson = try LessonPlayer(uri: Self.lessonURI, courseware: courseware, video: .discard, videoDelay: engine.outputLatency, logger: EngineSupport.logger)
        let capture = try OutputCapture(engine)
        try lesson.play()
        #expect(lesson.isPlaying)
        #expect(await waitFor { (lesson.position ?? .zero) > .seconds(1.5) })
        let duration = try #require(lesson.duration)
        #expect(abs(duration.seconds - 10) < 0.1)

        try lesson.pause()
        let pausedAt = try #require(lesson.position)
        let rtcPushes = rtc.pushed.count
        #expect(await waitFor { rtc.pushed.count > rtcPushes + 30 })           // RTC kept flowing
        #expect(abs((lesson.position ?? .zero).seconds - pausedAt.seconds) < 0.05)  // the lesson did not
        try lesson.seek(to: .seconds(6))
        try lesson.play()
        #expect(await waitFor { (lesson.position ?? .zero) > .seconds(6.5) })
        lesson.stop()
        capture.stop()

        let continuity = capture.continuity()
        #expect(continuity.gaps == 0)
        #expect(continuity.discontinuities == 0)
        // The lesson's narration and bed were heard: the mix is well above the −40 dBFS RTC tone alone.
        let loudest = stride(from: 0.0, to: 2.0, by: 0.5).map { capture.rms(in: ClockTime.seconds($0)..<ClockTime.seconds($0 + 0.5)) }.max() ?? -.infinity
        print("FIGURE lesson through the mixed stream: loudest 0.5 s window \(loudest) dBFS")
        #expect(loudest > -35)
    }

    @Test("a video tap gets the frames in gray when they are presented: not before their running time plus the engine's latency")
    func videoTapAtPresentation() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let clock = try Clock.system()
        // (clock time when handed over, the frame's running time, its size in bytes, its caps)
        let frames = Locked<[(ClockTime, ClockTime?, Int, String)]>([])
        let tap = VideoFrameTap { sample in
            let now = clock.time
            frames.withLock { $0.append((now, sample.runningTime, sample.buffer?.size ?? 0, sample.caps?.description ?? "")) }
        }
        let lesson = try LessonPlayer(uri: Self.lessonURI, courseware: courseware, video: .frames(tap), videoDelay: engine.outputLatency,
                                      logger: EngineSupport.logger)
        try lesson.play()
        #expect(await waitFor(timeout: .seconds(10)) { frames.withLock { $0.count } >= 30 })
        lesson.stop()
        let base = try #require(lesson.pipeline.baseTime)
        let seen = frames.withLock { $0 }
        #expect(seen.allSatisfy { $0.3.contains("GRAY8") && $0.2 > 0 })
        // Every frame, the first ones too: the lesson prerolls before it plays, so no sink runs
        // ahead of the pipeline's base time (before, up to 1.6 s of frames came in one burst).
        for (handedAt, runningTime, _, _) in seen {
            let due = base + (try #require(runningTime)) + engine.outputLatency
            #expect(handedAt + .milliseconds(1) >= due)
        }
    }

    @Test("a snapshot writes the frame on screen as a PNG of the lesson's size; with no video it says why")
    func snapshot() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let lesson = try LessonPlayer(uri: Self.lessonURI, courseware: courseware, video: .discard, videoDelay: engine.outputLatency, logger: EngineSupport.logger)
        defer { lesson.stop() }
        try lesson.play()
        #expect(await waitFor { (lesson.position ?? .zero) > .seconds(1) })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UInt32.random(in: 0...UInt32.max)).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let shownAt = try #require(try lesson.snapshot(to: path))
        #expect(shownAt > .seconds(0.5))
        // A PNG: the signature, then IHDR with the lesson's 320×240.
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let bigEndian = { (at: Int) in png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(png.count > 33 && bigEndian(16) == 320 && bigEndian(20) == 240)
        print("FIGURE snapshot: \(png.count) bytes, \(bigEndian(16))×\(bigEndian(20)) PNG of the frame at \(shownAt)")

        let audioOnly = try LessonPlayer(uri: Self.lessonURI, courseware: courseware, video: .none, videoDelay: engine.outputLatency, logger: EngineSupport.logger)
        #expect(throws: EngineError.self) { try audioOnly.snapshot(to: path + ".none.png") }
        #expect(!FileManager.default.fileExists(atPath: path + ".none.png"))
    }

    @Test("the lesson plays at half and double speed")
    func rate() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let lesson = try LessonPlayer(uri: Self.lessonURI, courseware: courseware, video: .discard, videoDelay: engine.outputLatency, logger: EngineSupport.logger)
        try lesson.play()
        #expect(await waitFor { (lesson.position ?? .zero) > .milliseconds(300) })
        try lesson.setRate(2.0)
        let start = try #require(lesson.position)
        let wallStart = ContinuousClock.now
        #expect(await waitFor { (lesson.position ?? .zero) > start + .seconds(2) })
        let elapsed = ContinuousClock.now - wallStart
        // Two seconds of lesson in about one second of time.
        #expect(elapsed < .milliseconds(1600))
        // scaletempo kept the audio in real time: lesson audio arriving at twice real time would
        // overflow the 200 ms queue and drop about half of the ~200 pushes of these 2 s. The seek
        // itself may drop a few (10 were seen on a loaded machine).
        #expect(courseware.droppedPushes < 25)
        #expect(throws: EngineError.self) { try lesson.setRate(3) }
        lesson.stop()
    }

    @Test("pictures and sound stay together at 0.75× and 1.25× (A/V sync through the mixed stream)", arguments: [0.75, 1.25])
    func syncAtRate(rate: Double) async throws {
        let (offsets, resyncs, flashes, beeps) = try await AVSyncProbe.offsets(rate: rate, logger: EngineSupport.logger)
        let median = offsets.sorted()[offsets.count / 2]
        print("FIGURE A/V sync at \(rate)×: median \(median) ms over \(offsets.count) pairs (\(flashes) flashes, \(beeps) beeps, \(resyncs) re-anchored): \(offsets.map { String(format: "%.1f", $0) })")
        #expect(offsets.count >= 8)
        #expect(abs(median) <= 20)
        // scaletempo's strides swing the audio around its timestamps; the courseware takes them contiguously.
        #expect(resyncs == 0)
    }
}
