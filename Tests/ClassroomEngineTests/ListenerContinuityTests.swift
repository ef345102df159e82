import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// Continuity where the listener is: what the sound server played on the device, recorded from its
/// monitor (`MonitorRecording`), not what reached our sink. Runs on PulseAudio and on PipeWire.
@Suite("What the listener hears", .serialized, .enabled(if: EngineSupport.hasPulse))
struct ListenerContinuityTests {
    init() throws { try EngineSupport.start() }

    private static let tone = TonePlayback.tone

    /// The engine on the speaker with a 500 Hz courseware tone, settled; the speaker's monitor recorded.
    private static func playTone() async throws -> TonePlayback {
        try await TonePlayback.start(device: "speaker", logger: EngineSupport.logger)
    }

    @Test("20 mic connect/disconnect cycles with profile switches: the speaker's monitor hears the courseware tone with no dropout and no click of their own")
    func micCycles() async throws {
        // The microphone is a device of its own (a null sink's monitor standing in for a USB mic).
        let room = "room_\(UInt32.random(in: 0...UInt32.max))"
        let roomModule = try PulseAudioControl.loadNullSink(room)
        defer { PulseAudioControl.unload(roomModule) }
        let playback = try await Self.playTone()
        defer { playback.stop() }
        let (engine, courseware) = (playback.engine, playback.courseware)
        let droppedBefore = courseware.droppedPushes
        let start = playback.recording.recorded.count
        for cycle in 0..<20 {
            let uplink = try engine.connectMicrophone(.device("\(room).monitor"), processing: .voice) { _ in }
            try await Task.sleep(for: .milliseconds(60))
            try uplink.reconfigure(cycle.isMultiple(of: 2) ? .off : .voice)
            engine.disconnectMicrophone()
            try await Task.sleep(for: .milliseconds(40))
        }
        try await Task.sleep(for: .milliseconds(500))
        playback.recording.stop()
        let heard = playback.heard(from: start)
        print("FIGURE heard on the speaker's monitor over 20 mic cycles: \(heard.seconds) s judged, \(heard.dropouts) dropouts at \(heard.dropoutTimes), \(heard.clicks) clicks at \(heard.clickTimes.prefix(10)); output buffer \(engine.outputBuffer.size.milliseconds) ms after \(engine.outputBuffer.underruns) underruns")
        #expect(heard.seconds > 2)
        #expect(heard.dropouts == 0)
        // The output pulsesink is slaved to the system clock (skew method): its corrections skip a
        // fraction of a millisecond now and then, with or without the microphone (measured: in
        // 2.5–4 s of steady tone, one skip in 2 of 10 runs on PulseAudio and in 5 of 6 on
        // PipeWire, heard identically by two recorders). A click the mic cycles caused would
        // come with every one of the 40 identical connects and disconnects, not once.
        // On PipeWire, about 1 run in 5 has two clicks about 0.78 s apart, mid-cycles (measured
        // 1.75–1.83 s and 2.52–2.61 s, with or without a role on the recording): a real finding,
        // not yet explained (a graph quantum change as mic streams open is the first suspect),
        // reported as a known issue there rather than hidden.
        if EngineSupport.onPipeWire {
            withKnownIssue("PipeWire: two clicks ~0.78 s apart during mic cycles in about 1 run in 5", isIntermittent: true) {
                #expect(heard.clicks <= 1)
            }
        } else {
            #expect(heard.clicks <= 1)
        }
        #expect(courseware.droppedPushes == droppedBefore)
    }

    /// A stream move is the server's: PulseAudio drops or replays what the old sink still held
    /// (measured: a 7–14 ms gap or overlap at each move). The engine's part is that nothing else
    /// breaks: between moves the listener hears the tone whole.
    @Test("5 retargets between two devices: the two monitors together hear the tone whole between moves; each move costs at most 20 ms, at the move")
    func retargets() async throws {
        let other = "other_\(UInt32.random(in: 0...UInt32.max))"
        let module = try PulseAudioControl.loadNullSink(other)
        defer { PulseAudioControl.unload(module) }
        // An idle null sink's monitor delivers nothing: a silent stream on each keeps both
        // recordings in real time, so they share one timeline.
        let keepers = try ["speaker", other].map { device in
            let keeper = try Pipeline.parse("audiotestsrc is-live=true wave=silence ! audio/x-raw,rate=48000,channels=2 ! pulsesink device=\(device)")
            try keeper.setState(.playing)
            return keeper
        }
        defer { for keeper in keepers { _ = try? keeper.setState(.null) } }
        let playback = try await Self.playTone()
        let (engine, speaker) = (playback.engine, playback.recording)
        let elsewhere = try MonitorRecording(device: other)
        defer { elsewhere.stop(); playback.stop() }
        try await Task.sleep(for: .milliseconds(500))
        let starts = (speaker.recorded.count, elsewhere.recorded.count)
        // Each move from when it was asked to when pulsesink saw the stream on the device (retargetOutput returns then).
        var moves: [(asked: Double, landed: Double)] = []
        let began = ContinuousClock.now
        func elapsed() -> Double { let parts = (ContinuousClock.now - began).components; return Double(parts.seconds) + Double(parts.attoseconds) / 1e18 }
        for index in 0..<5 {
            try await Task.sleep(for: .milliseconds(600))
            let asked = elapsed()
            try engine.retargetOutput(device: index.isMultiple(of: 2) ? other : "speaker")
            moves.append((asked, elapsed()))
        }
        try await Task.sleep(for: .milliseconds(600))
        speaker.stop()
        elsewhere.stop()
        let (a, b) = (Array(speaker.recorded.dropFirst(starts.0)), Array(elsewhere.recorded.dropFirst(starts.1)))
        let together = (0..<min(a.count, b.count)).map { Int16(clamping: Int(a[$0]) + Int(b[$0])) }
        let heard = HeardContinuity(together, amplitude: Self.tone.amplitude, frequency: Self.tone.frequency, settle: 0)
        // At a move: from 20 ms before it was asked (the recordings' start marks trail by a few ms) to 40 ms
        // after it landed. Measured from the ask alone, PipeWire 1.4.2's moves clicked 41-49 ms after it (in 8
        // of 8 runs, with and without WORKAROUNDS §35), outside a 40 ms window, and failed 5 of 8.
        func atAMove(_ time: Double) -> Bool { moves.contains { time > $0.asked - 0.02 && time < $0.landed + 0.04 } }
        let strayClicks = heard.clickTimes.filter { !atAMove($0) }
        let strayDropouts = heard.dropoutTimes.filter { !atAMove($0) }
        print("FIGURE heard on both monitors over 5 retargets at \(moves.map { String(format: "%.2f (landed +%.0f ms)", $0.asked, ($0.landed - $0.asked) * 1000) }) s: \(heard.seconds) s judged, "
              + "\(heard.dropouts) dropouts at \(heard.dropoutTimes), \(heard.clicks) clicks (\(strayClicks.count) away from a move: \(strayClicks.prefix(5)))")
        #expect(heard.seconds > 3)
        #expect(strayDropouts.isEmpty)
        #expect(heard.dropouts <= 2 * moves.count)
        // Skew slaving's skips, as in the mic-cycles test, on the engine's stream and on each recording's
        // (0–2 in 3.6 s measured on PipeWire, where a skip came in 5 of 6 runs of 4 s on one stream).
        #expect(strayClicks.count <= 3)
    }

    /// How long the busy class runs: half a minute in `make test`, whose four device passes each run
    /// it while nothing else may (CLASSROOM_AUDIO_BUSY_SECONDS lengthens it).
    static let busySeconds = Int(ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_BUSY_SECONDS"] ?? "") ?? 30

    /// What the listener hears under load depends on how late the machine wakes a real-time thread
    /// (up to 9 ms on a virtual machine with 2 vCPUs and both busy, scripts/measure/wakeup-latency.py;
    /// GSTREAMER-WORKAROUNDS §7), so it is the benchmark's (`classroom-bench run --only busy`, five
    /// minutes on each server). Asserted here is the engine's part under the same load: it plays on
    /// to the end, keeps every push while the output plays and answers an underrun with a raise it says.
    @Test("half a minute of class with every core busy (a CPU hog at normal priority, the engine real-time): the tone plays on to the end, no push is dropped but at a raise, and every underrun raises the buffer and says so")
    func busyCores() async throws {
        let busy = try await BusyClass.measure(seconds: Self.busySeconds, logger: EngineSupport.logger) { engine, note in
            // The sink's skew corrections and resyncs, for the figure: a click at one of them is the sink's (WORKAROUNDS §7).
            try [("correct clock skew", "skew"), ("discontinuity", "resync")].map { text, name in
                try DebugLogWatch(category: "audiobasesink", level: .warning, containing: text, about: engine.outputSink) { note(name) }
            }
        }
        print("FIGURE heard on the speaker's monitor over \(Self.busySeconds) s with \(busy.workers) busy loops: \(busy.summary)")
        #expect(busy.judgedSeconds > Double(Self.busySeconds) - 2)
        // Playing on: no silence longer than a raise's reopen (40-80 ms measured; GSTREAMER-WORKAROUNDS §28).
        #expect(busy.longestSilence < 0.25)
        if busy.underrunsUnderLoad > 0 {
            #expect(!busy.underrunsSaid.isEmpty && busy.bufferAfter > busy.bufferBefore, "an underrun past settling raises the buffer and says so")
        }
        // Pushes are kept while the output plays; a raise reopens the stream, and the pushes that
        // arrive while it reopens may overflow the input (the reopen's cost, GSTREAMER-WORKAROUNDS §28).
        #expect(busy.droppedPushes == 0 || !busy.underrunsSaid.isEmpty, "pushes dropped without a raise")
    }

    @Test("the judge hears the server's side: the speaker muted on the server for 300 ms is heard as dropouts")
    func mutedSinkIsHeard() async throws {
        let playback = try await Self.playTone()
        defer { playback.stop() }
        let start = playback.recording.recorded.count
        try PulseAudioControl.pactl(["set-sink-mute", "speaker", "1"])
        try await Task.sleep(for: .milliseconds(300))
        try PulseAudioControl.pactl(["set-sink-mute", "speaker", "0"])
        try await Task.sleep(for: .milliseconds(500))
        playback.recording.stop()
        let heard = playback.heard(from: start)
        print("FIGURE heard on the speaker's monitor with 300 ms muted: \(heard.dropouts) dropouts, \(heard.clicks) clicks")
        #expect(heard.dropouts >= 20)
    }

    @Test("the judge finds a skip of a third of a period and a 20 ms silence in a recorded tone")
    func judgeSeesSkipsAndSilence() {
        let rate = Double(MonitorRecording.rate)
        func tone(_ range: Range<Int>, shift: Int = 0) -> [Int16] {
            range.map { Int16((0.1 * 32_767 * sin(2 * Double.pi * Self.tone.frequency * Double($0 + shift) / rate)).rounded()) }
        }
        let clean = tone(0..<48_000)
        #expect(HeardContinuity(clean, amplitude: Self.tone.amplitude, frequency: Self.tone.frequency).clicks == 0)
        // 32 samples skipped at 0.5 s: what pulsesink's skew correction does.
        let skipped = tone(0..<24_000) + tone(24_000..<48_000, shift: 32)
        let skip = HeardContinuity(skipped, amplitude: Self.tone.amplitude, frequency: Self.tone.frequency)
        #expect(skip.clicks == 1 && skip.dropouts == 0)
        // 20 ms of silence from a crest just after 0.6 s: two 10 ms blocks gone, with a click at each edge.
        var silenced = clean
        silenced.replaceSubrange(28_824..<29_784, with: repeatElement(0, count: 960))
        let silence = HeardContinuity(silenced, amplitude: Self.tone.amplitude, frequency: Self.tone.frequency)
        #expect(silence.dropouts == 2 && silence.clicks == 2)
        #expect(silence.dropoutTimes == [0.6, 0.61])
    }
}
