import ClassroomAudio
import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// Bad inputs and faults, one row each: the input or fault → the typed error or event expected →
/// proof that everything else kept working. "Everything else" is a bystander: a running session
/// with live RTC, whose teacher tone must keep reaching the output at its level, without a
/// timestamp gap or DISCONT, while the engine stays in PLAYING.
@Suite("Reliability: bad inputs and faults", .serialized)
struct ReliabilityTests {
    init() throws { try EngineSupport.start() }

    // MARK: Lesson files

    /// A lesson file that is wrong in one way, and what must come of it.
    struct LessonRow: Sendable, CustomTestStringConvertible {
        enum Expected: Sendable {
            /// `play()` throws `lessonUnplayable` with this problem, its detail mentioning the text.
            case unplayable(LessonProblem, mentioning: String)
            /// It plays: courseware audio arrives when `audio`, a snapshot can be taken when `video`.
            case plays(audio: Bool, video: Bool)
        }
        let name: String
        /// Makes the file in a scratch directory; returns its URI.
        let make: @Sendable (URL) throws -> String
        let expected: Expected
        var testDescription: String { name }
    }

    static let lessonRows: [LessonRow] = [
        LessonRow(name: "missing file", make: { $0.appendingPathComponent("absent.webm").absoluteString },
                  expected: .unplayable(.notFound, mentioning: "absent.webm")),
        LessonRow(name: "empty file", make: { dir in
            let file = dir.appendingPathComponent("empty.mp4")
            try Data().write(to: file)
            return file.absoluteString
        }, expected: .unplayable(.notMedia, mentioning: "no data")),
        LessonRow(name: "truncated MP4 (H.264/AAC, cut at 40 %)", make: { try truncatedMP4(in: $0).absoluteString },
                  expected: .unplayable(.damaged, mentioning: "")),
        LessonRow(name: "corrupt header (first 64 bytes zeroed)", make: { dir in
            let file = dir.appendingPathComponent("corrupt.webm")
            var bytes = try Data(contentsOf: samplesURL.appendingPathComponent("lesson.webm"))
            bytes.replaceSubrange(0..<64, with: Data(count: 64))
            try bytes.write(to: file)
            return file.absoluteString
        }, expected: .unplayable(.notMedia, mentioning: "type")),
        LessonRow(name: "a text file named .mp4 (decodebin: WRONG_TYPE)", make: { dir in
            let file = dir.appendingPathComponent("notes.mp4")
            try String(repeating: "Page 12: the little red hen plants the wheat all by herself.\n", count: 40).write(to: file, atomically: true, encoding: .utf8)
            return file.absoluteString
        }, expected: .unplayable(.notMedia, mentioning: "text file")),
        LessonRow(name: "audio-only lesson", make: { _ in samplesURL.appendingPathComponent("live-feed.ogg").absoluteString },
                  expected: .plays(audio: true, video: false)),
        LessonRow(name: "video-only lesson", make: { dir in
            let file = dir.appendingPathComponent("video-only.webm")
            try EngineSupport.render("videotestsrc num-buffers=45 ! video/x-raw,width=160,height=120,framerate=15/1 ! vp8enc ! webmmux ! filesink location=\(file.path)")
            return file.absoluteString
        }, expected: .plays(audio: false, video: true)),
        LessonRow(name: "unsupported codec (Matroska track 'A_ZZZZ')", make: { dir in
            let file = dir.appendingPathComponent("unknown-codec.mka")
            try EngineSupport.render("audiotestsrc num-buffers=100 ! opusenc ! matroskamux ! filesink location=\(file.path)")
            // Same length, so every EBML size stays valid: only the codec id is unknown.
            var bytes = try Data(contentsOf: file)
            let range = try #require(bytes.range(of: Data("A_OPUS".utf8)))
            bytes.replaceSubrange(range, with: Data("A_ZZZZ".utf8))
            try bytes.write(to: file)
            return file.absoluteString
        }, expected: .unplayable(.noDecoder, mentioning: "A_ZZZZ")),
        LessonRow(name: "a URI with odd characters (#, %, &, spaces, ü, –)", make: { dir in
            let file = dir.appendingPathComponent("Lektion #1 – ü & 100% (final).webm")
            try FileManager.default.copyItem(at: samplesURL.appendingPathComponent("lesson.webm"), to: file)
            return file.absoluteString
        }, expected: .plays(audio: true, video: true)),
        LessonRow(name: "a directory", make: { dir in
            let folder = dir.appendingPathComponent("lesson-folder.webm", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return folder.absoluteString
        }, expected: .unplayable(.unreadable, mentioning: "directory")),
    ]

    @Test("a bad lesson file gets a typed error with advice, a good odd one plays, and RTC keeps mixing", arguments: lessonRows)
    func lessonFile(_ row: LessonRow) async throws {
        let scratch = try EngineSupport.scratchFolder("reliability")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let uri = try row.make(scratch)
        let bystander = try await Bystander.make()
        defer { bystander.stop() }
        let courseware = try bystander.engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        try courseware.setVolume(0)   // the lesson reaches the mixer (checked below), but the level check hears the teacher alone
        let lesson = try LessonPlayer(uri: uri, courseware: courseware, video: .discard, videoDelay: bystander.engine.outputLatency,
                                      logger: EngineSupport.logger)
        defer { lesson.stop() }
        switch row.expected {
        case .unplayable(let problem, let mentioning):
            do {
                try lesson.play()
                Issue.record("\(row.name) must not play")
            } catch {
                guard case .lessonUnplayable(let found, let detail) = error else { Issue.record("untyped failure: \(error)"); return }
                print("ROW lesson \(row.name) → \(found.rawValue): \(detail)")
                #expect(found == problem)
                #expect(mentioning.isEmpty || detail.localizedCaseInsensitiveContains(mentioning))
                #expect(error.description.contains(problem.advice))
            }
        case .plays(let audio, let video):
            try lesson.play()
            #expect(await waitFor { (lesson.position ?? .zero) > .seconds(1) })
            #expect((courseware.arrivals.silence() != nil) == audio)
            let snapshot = scratch.appendingPathComponent("frame.png").path
            if video {
                #expect(try lesson.snapshot(to: snapshot) != nil)
            } else {
                #expect(throws: EngineError.self) { try lesson.snapshot(to: snapshot) }
            }
            print("ROW lesson \(row.name) → plays (audio \(audio), video \(video))")
        }
        try await bystander.expectStillWorking()
    }

    // MARK: RTC pushes

    /// A misbehaving RTC feed, pushed into its own input next to the bystander's.
    struct PushRow: Sendable, CustomTestStringConvertible {
        let name: String
        /// Misbehaves on `victim` and checks the outcome; returns what it saw, for the log.
        let act: @Sendable (_ victim: AudioInput, _ bystander: Bystander) async throws -> String
        var testDescription: String { name }
    }

    static let mono = AudioFormat(format: .s16, rate: 48_000, channels: 1)

    static let pushRows: [PushRow] = [
        PushRow(name: "wrong sample count (321 samples into a stereo input)") { _, bystander in
            let stereo = try bystander.engine.addRTCInput(id: "rtc-stereo", format: AudioFormat(format: .s16, rate: 48_000, channels: 2))
            let error = try #require(throws: EngineError.self) { try stereo.push([Int16](repeating: 0, count: 321)) }
            guard case .wrongSamples(input: "rtc-stereo", _) = error else { throw EngineTestFailure("expected wrongSamples, got \(error)") }
            #expect(try stereo.push([Int16](repeating: 0, count: 960)) == .queued)   // the input still takes good audio
            return error.description
        },
        PushRow(name: "wrong format (Float samples into a 16-bit input)") { victim, _ in
            let error = try #require(throws: EngineError.self) { try victim.push([Float](repeating: 0, count: 480)) }
            guard case .wrongSamples = error else { throw EngineTestFailure("expected wrongSamples, got \(error)") }
            #expect(try victim.push([Int16](repeating: 0, count: 480)) == .queued)
            return error.description
        },
        PushRow(name: "timestamps going backwards") { victim, bystander in
            let now = try #require(bystander.engine.runningTime)
            try victim.push([Int16](repeating: 0, count: 4_800), timestamp: now + .milliseconds(500))     // 100 ms at +500 ms
            let error = try #require(throws: EngineError.self) {
                try victim.push([Int16](repeating: 0, count: 480), timestamp: now + .milliseconds(300))
            }
            guard case .timestampWentBackwards(input: victim.id, let by) = error else { throw EngineTestFailure("expected timestampWentBackwards, got \(error)") }
            #expect(by == .milliseconds(300))
            #expect(try victim.push([Int16](repeating: 0, count: 480), timestamp: now + .milliseconds(600)) == .queued)
            return error.description
        },
        PushRow(name: "pushes after removal") { victim, bystander in
            try bystander.engine.removeInput(id: victim.id)
            let error = try #require(throws: EngineError.self) { try victim.push([Int16](repeating: 0, count: 480)) }
            guard case .inputRemoved(victim.id) = error else { throw EngineTestFailure("expected inputRemoved, got \(error)") }
            return error.description
        },
        PushRow(name: "pushing 10× faster than real time for 10 s") { victim, bystander in
            let before = residentMemory()
            var dropping = 0
            // 100 ms of audio every 10 ms: 100 s of audio in 10 s.
            for _ in 0..<1_000 {
                if try victim.push([Int16](repeating: 1_000, count: 4_800)) == .queuedDroppingOldest { dropping += 1 }
                try await Task.sleep(for: .milliseconds(10))
            }
            let growth = residentMemory() - before
            #expect(dropping > 500)
            #expect(victim.droppedPushes == dropping)
            #expect(victim.queuedTime <= bystander.engine.configuration.inputQueue + .milliseconds(100))
            #expect(growth < 16 << 20)
            return "\(dropping) of 1000 pushes dropped older audio; queue \(victim.queuedTime); RSS grew \(growth >> 10) KiB"
        },
        PushRow(name: "starving for 5 s", act: starve),
    ]

    /// Feeds the victim, stops for 5 s (1025 must rise), resumes (it must clear).
    static func starve(_ victim: AudioInput, _ bystander: Bystander) async throws -> String {
        let pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=700 volume=0.05 samplesperbuffer=480", into: victim, format: mono)
        #expect(await waitFor { victim.arrivals.silence() != nil })
        pump.stop()
        let raised = await waitFor(timeout: .seconds(2)) { bystander.hasAlarm(.rtcAudioInterrupted, owner: victim.id) }
        try await Task.sleep(for: .seconds(5))
        #expect(raised)
        let resumed = try SignalPump("audiotestsrc is-live=true wave=sine freq=700 volume=0.05 samplesperbuffer=480", into: victim, format: mono)
        defer { resumed.stop() }
        #expect(await waitFor(timeout: .seconds(2)) { !bystander.hasAlarm(.rtcAudioInterrupted, owner: victim.id) })
        return "1025 raised while starving (\(raised)), cleared on resume"
    }

    @Test("a misbehaving RTC feed gets a typed error or a bounded, counted outcome, and the other feeds keep mixing", arguments: pushRows)
    func rtcPush(_ row: PushRow) async throws {
        let bystander = try await Bystander.make()
        defer { bystander.stop() }
        let victim = try bystander.engine.addRTCInput(id: "rtc-victim", format: Self.mono)
        try victim.setVolume(0)   // mixed like any feed, but the level check hears the teacher alone
        let outcome = try await row.act(victim, bystander)
        print("ROW push \(row.name) → \(outcome)")
        try await bystander.expectStillWorking()
    }

    // MARK: Support

    static let samplesURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples")

    /// An MP4 (H.264/AAC) cut at 40 %, before its `moov`: the demuxer finds no stream in it.
    static func truncatedMP4(in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent("truncated.mp4")
        try EngineSupport.render("""
            videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120,framerate=15/1 ! openh264enc ! h264parse ! mp4mux name=mux ! filesink location=\(file.path) \
            audiotestsrc num-buffers=40 ! audio/x-raw,rate=48000 ! avenc_aac ! aacparse ! mux.
            """)
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count * 2 / 5).write(to: file)
        return file
    }

    /// The process's resident set size in bytes (VmRSS).
    static func residentMemory() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib << 10
    }
}

/// A running session with live RTC: the teacher's 1 kHz tone at −29 dBFS, captured at the output.
final class Bystander: Sendable {
    let controller: SessionController
    var engine: AudioEngine { controller.engine }
    private let lease: LeaseToken
    /// The teacher's input: its re-anchors tell a stall of its own pump from a fault of the mix.
    private let teacher: AudioInput
    private let pump: SignalPump
    private let capture = Locked<OutputCapture?>(nil)
    /// 20·log10(0.05/√2): the tone's RMS.
    static let level = -29.03

    /// A settled bystander: the engine has run 300 ms before the capture starts (the mixer restarts
    /// its timestamps once in its first 20 ms — a start-up transient the continuity tests skip too),
    /// and the teacher is heard at its level. Its pump is a pipeline of its own, which under CI's two
    /// lanes started late enough that the 400 ms checked after an instant row began without it
    /// (the teacher at −30.1 dBFS, 1.1 dB under its level, after "pushes after removal").
    static func make() async throws -> Bystander {
        let bystander = try Bystander()
        guard await OutputWarmUp.settle(bystander.engine) else { throw EngineTestFailure("the engine did not start running") }
        let capture = try OutputCapture(bystander.engine)
        bystander.capture.withLock { $0 = capture }
        guard await bystander.teacherHeard(within: .seconds(5)) else {
            throw EngineTestFailure("the teacher was not heard at \(level) dBFS within 5 s of the engine running")
        }
        return bystander
    }

    /// Whether the last 100 ms captured hold the teacher at its level, looked at until `timeout`.
    private func teacherHeard(within timeout: Duration) async -> Bool {
        guard let capture = capture.withLock({ $0 }) else { return false }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let now = engine.runningTime, await capture.wait(until: now, timeout: .seconds(1)) else { continue }
            if abs(capture.rms(in: now - .milliseconds(100)..<now) - Self.level) < 0.5 { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    private init() throws {
        controller = try SessionController(output: .discard, logger: EngineSupport.logger)
        try controller.start()
        lease = try controller.session.lease(.rtcPlayback, owner: "rtc")
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try controller.engine.addRTCInput(id: "rtc-teacher", format: format)
        self.teacher = teacher
        pump = try SignalPump("audiotestsrc is-live=true wave=sine freq=1000 volume=0.05 samplesperbuffer=480", into: teacher, format: format)
    }

    func hasAlarm(_ code: AlarmCode, owner: String) -> Bool {
        controller.session.resolvedState.alarms.contains { $0.code == code && $0.owner == owner }
    }

    /// The teacher is still heard at the same level, the output never broke, the engine plays.
    ///
    /// The level is judged over a window in which the teacher's own feed kept time. A feed that
    /// arrives beyond the push tolerance is re-anchored (`timelineResyncs`), leaving the mix without
    /// it for the length of the stall: that is the teacher's pump kept off the CPU (under CI's two
    /// lanes: the 400 ms window read 1.35 dB under, long after the bystander had settled), not the
    /// misbehaving feed's doing, so such a window is said and taken again (at most three times).
    func expectStillWorking(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let capture = try #require(capture.withLock { $0 }, sourceLocation: sourceLocation)
        var heard = -Double.infinity
        var window = ""
        for attempt in 1...Self.windows {
            let resyncs = teacher.timelineResyncs
            let now = try #require(engine.runningTime)
            #expect(await capture.wait(until: now + .milliseconds(500)), sourceLocation: sourceLocation)
            // A stall still under way when the capture got there shows once the teacher pushes again.
            _ = await waitFor(timeout: .seconds(2)) { (teacher.arrivals.silence() ?? .zero) < .milliseconds(30) }
            heard = capture.rms(in: now + .milliseconds(100)..<now + .milliseconds(500))
            window = Self.slices(of: capture, from: now + .milliseconds(100))
            let broke = teacher.timelineResyncs - resyncs
            guard broke > 0 else { break }
            print("BYSTANDER the teacher's own feed broke \(broke)× in window \(attempt) (its pump was kept off the CPU), heard \(heard) dBFS [\(window)]; \(attempt < Self.windows ? "taken again" : "no window left")")
            if attempt == Self.windows { Issue.record("the teacher's own feed broke in all \(Self.windows) windows: the machine is too busy to judge", sourceLocation: sourceLocation) }
        }
        let continuity = capture.continuity()
        #expect(abs(heard - Self.level) < 0.5, "the teacher at \(heard) dBFS; per 20 ms: [\(window)]; its feed re-anchored \(teacher.timelineResyncs)× in all, \(teacher.droppedPushes) pushes dropped",
                sourceLocation: sourceLocation)
        #expect(continuity.gaps == 0 && continuity.discontinuities == 0, "\(continuity)", sourceLocation: sourceLocation)
        #expect(engine.pipeline.state == .playing, sourceLocation: sourceLocation)
        #expect(!hasAlarm(.rtcAudioInterrupted, owner: "rtc-teacher"), sourceLocation: sourceLocation)
    }

    /// Windows a level check may take when the teacher's own feed broke in the one before.
    static let windows = 3

    /// The level of each 20 ms of the 400 ms window from `start`, in dBFS: where a shortfall lies.
    private static func slices(of capture: OutputCapture, from start: ClockTime) -> String {
        stride(from: 0, to: 400, by: 20).map { (offset: Int) -> String in
            let from: ClockTime = start + .milliseconds(offset)
            let level: Double = capture.rms(in: from..<from + .milliseconds(20))
            return String(format: "%.1f", level)
        }.joined(separator: " ")
    }

    func stop() {
        capture.withLock { $0?.stop() }
        pump.stop()
        controller.stop()
    }
}
