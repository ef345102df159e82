import ArgumentParser
import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging
import Synchronization

/// The long real-time run on the private PulseAudio server: the engine plays a courseware tone
/// and an RTC tone to a pulsesink; first the microphone (pulsesrc) is connected and disconnected
/// `cycles` times (60 ms on, 40 ms off) with `retargets` sink moves among them, every output buffer checked for gaps,
/// DISCONT and clicks; then the microphone stays connected (voice profile) until `seconds`, the
/// RSS sampled every 5 s.
struct SoakWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "soak", abstract: "The long run: mic cycles, sink retargets, RSS.")

    struct Continuity: Codable {
        var buffers: Int, gaps: Int, discontinuities: Int, clicks: Int, droppedPushes: Int
    }

    struct Outcome: Codable {
        var seconds: Double
        var cycles: Int
        var retargets: Int
        var cycleContinuity: Continuity
        var runContinuity: Continuity
        /// RSS (KiB) just before the first and just after the last cycle.
        var rssAroundCycles: [Double]
        /// When the steady phase began, seconds from the start.
        var steadyFrom: Double
        /// [seconds from the start, RSS KiB]
        var rss: [[Double]]
        var peakRSSKiB: Int
    }

    @Option(help: "Seconds the whole run lasts.")
    var seconds: Int

    @Option(help: "Microphone connect/disconnect cycles.")
    var cycles = 100

    @Option(help: "Sink retargets among the cycles.")
    var retargets = 20

    @Option(help: "A file written when the cycles are done.")
    var progress: String

    func run() async throws {
        let started = ProcessMeters.monotonicNanoseconds()
        func elapsed() -> Double { Double(ProcessMeters.monotonicNanoseconds() - started) / 1e9 }
        let logger = WorkerSetup.logger("soak")
        try GStreamer.initialize()
        let tag = UInt32.random(in: 0...UInt32.max)
        let headset = "bench_headset_\(tag)", room = "bench_room_\(tag)"
        let modules = [try PulseAudioControl.loadNullSink(headset, properties: "device.description='Second output'"),
                       try PulseAudioControl.loadNullSink(room)]
        defer { modules.reversed().forEach(PulseAudioControl.unload) }

        let engine = try AudioEngine(output: .soundServer(device: "speaker"), logger: logger)
        try engine.start()
        defer { engine.stop() }
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: EngineGraph.outputFormat)
        let mono = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try engine.addRTCInput(id: "rtc-teacher", format: mono)
        let pumps = [
            try SignalPump("audiotestsrc is-live=true wave=sine freq=500 volume=0.1 samplesperbuffer=480", into: courseware, format: EngineGraph.outputFormat),
            try SignalPump("audiotestsrc is-live=true wave=sine freq=300 volume=0.05 samplesperbuffer=480", into: teacher, format: mono),
        ]
        defer { pumps.forEach { $0.stop() } }
        guard await OutputWarmUp.settle(engine, input: courseware) else { throw BenchError("the output did not settle on PulseAudio") }
        let meter = MeterBox(ContinuityMeter(clickLimit: ContinuityMeter.clickLimit(sines: [(0.1, 500), (0.05, 300)]), channels: 2))
        let tap = try engine.tapOutput { buffer in meter.add(buffer) }
        defer { tap?.remove() }
        let droppedBefore = courseware.droppedPushes + teacher.droppedPushes
        func dropped() -> Int { courseware.droppedPushes + teacher.droppedPushes - droppedBefore }

        let microphone = MicrophoneSource.device("\(room).monitor")
        let rssBeforeCycles = Double(ProcessMeters.currentRSSKiB())
        var moved = 0
        let every = max(1, cycles / max(1, retargets))
        for cycle in 0..<cycles {
            _ = try engine.connectMicrophone(microphone, processing: .voice) { _ in }
            try await Task.sleep(for: .milliseconds(60))
            if cycle.isMultiple(of: every), moved < retargets {
                try engine.retargetOutput(device: moved.isMultiple(of: 2) ? headset : "speaker")
                moved += 1
            }
            engine.disconnectMicrophone()
            try await Task.sleep(for: .milliseconds(40))
        }
        try await Task.sleep(for: .milliseconds(300))   // the last cycle's output through the latency
        let cycleContinuity = meter.snapshot(dropped: dropped())
        let rssAfterCycles = Double(ProcessMeters.currentRSSKiB())
        try Data("cycles done\n".utf8).write(to: URL(fileURLWithPath: progress))

        // Steady: a class with the microphone on, until the end (at least 30 s of it).
        let steadyFrom = elapsed()
        let end = max(Double(seconds), steadyFrom + 30)
        _ = try engine.connectMicrophone(microphone, processing: .voice) { _ in }
        var rss: [[Double]] = [[elapsed(), Double(ProcessMeters.currentRSSKiB())]]
        while elapsed() < end {
            try await Task.sleep(for: .seconds(min(5, max(0.1, end - elapsed()))))
            rss.append([elapsed(), Double(ProcessMeters.currentRSSKiB())])
        }
        engine.disconnectMicrophone()
        let outcome = Outcome(seconds: elapsed(), cycles: cycles, retargets: moved,
                              cycleContinuity: cycleContinuity, runContinuity: meter.snapshot(dropped: dropped()),
                              rssAroundCycles: [rssBeforeCycles, rssAfterCycles], steadyFrom: steadyFrom,
                              rss: rss, peakRSSKiB: ProcessMeters.peakRSSKiB())
        print(String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self))
    }
}

/// A continuity meter fed from the output's streaming thread.
private final class MeterBox: Sendable {
    private let meter: Mutex<ContinuityMeter>

    init(_ meter: ContinuityMeter) { self.meter = Mutex(meter) }

    func add(_ buffer: Buffer) {
        let pts = buffer.pts, duration = buffer.duration, flags = buffer.flags, samples = buffer.int16Samples()
        meter.withLock { $0.add(pts: pts, duration: duration, flags: flags, samples: samples) }
    }

    func snapshot(dropped: Int) -> SoakWorker.Continuity {
        meter.withLock { SoakWorker.Continuity(buffers: $0.buffers, gaps: $0.gaps, discontinuities: $0.discontinuities, clicks: $0.clicks, droppedPushes: dropped) }
    }
}
