import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// A class played while every core is busy at normal priority (`CPUHog`), the engine's threads
/// real-time: the courseware tone on a sound-server device, and what its monitor heard. The
/// listener's dropouts and clicks depend on how late this machine wakes a real-time thread under
/// load, so the benchmark reports them; a test asserts what the engine does about an underrun.
public struct BusyClass: Codable, Sendable {
    /// Seconds of the tone judged, from a second after the load began.
    public let judgedSeconds: Double
    /// Busy loops that ran (one per core).
    public let workers: Int
    /// Where the listener heard a dropout and a click, in seconds of the recording.
    public let dropoutTimes: [Double]
    public let clickTimes: [Double]
    /// Underruns the engine counted before the load began (settling) and in all.
    public let underrunsBefore: Int
    public let underruns: Int
    /// The output buffer before the load, what each underrun the engine said under load reported
    /// (the raised size, or the size it stayed at), and where it ended; in milliseconds.
    public let bufferBefore: Double
    public let underrunsSaid: [Double]
    public let bufferAfter: Double
    /// Courseware pushes the engine dropped under load.
    public let droppedPushes: Int
    /// What the caller's diagnostics noted (the sink's own corrections), in the order noted.
    public let notes: [String]

    /// Underruns the engine counted while the load ran.
    public var underrunsUnderLoad: Int { underruns - underrunsBefore }
    public var dropouts: Int { dropoutTimes.count }
    public var clicks: Int { clickTimes.count }

    /// The longest run of consecutive dropouts, in seconds: an output that stalls or stops shows here.
    public var longestSilence: Double {
        var longest = 0, run = 0, previous = -Double.infinity
        for time in dropoutTimes {
            run = time - previous < 0.015 ? run + 1 : 1
            longest = max(longest, run)
            previous = time
        }
        return Double(longest) / 100
    }

    /// Plays `seconds` of class under load on `device`. `diagnose`, given the engine and a way to
    /// note what it sees, returns whatever must stay alive while the load runs (e.g. debug-log watches).
    public static func measure(seconds: Int, device: String = "speaker", logger: Logger,
                               diagnose: ((AudioEngine, @escaping @Sendable (String) -> Void) throws -> [AnyObject])? = nil) async throws -> BusyClass {
        let playback = try await TonePlayback.start(device: device, logger: logger)
        defer { playback.stop() }
        let engine = playback.engine
        let said = Appended<ClockTime>()
        let watch = engine.observe { event in if case .outputUnderrun(let buffer, _) = event { said.append(buffer) } }
        defer { watch.cancel() }
        let underrunsBefore = engine.outputBuffer.underruns
        let bufferBefore = engine.outputBuffer.size
        let droppedBefore = playback.courseware.droppedPushes
        // Judged from a second on: the recording's own start clicked once or twice in its first second (measured).
        try await Task.sleep(for: .seconds(1))
        let start = playback.recording.recorded.count
        let began = ContinuousClock.now
        let notes = Appended<String>()
        let kept = try diagnose?(engine) { note in
            let at = String(format: "%.2f", (ContinuousClock.now - began) / .seconds(1))
            notes.append("\(note) \(at)")
        }
        defer { withExtendedLifetime(kept) {} }
        let hog = try CPUHog(lasting: .seconds(seconds + 5))
        defer { hog.stop() }
        try await Task.sleep(for: .seconds(seconds))
        hog.stop()
        playback.recording.stop()
        let heard = playback.heard(from: start)
        return BusyClass(judgedSeconds: heard.seconds, workers: hog.workers, dropoutTimes: heard.dropoutTimes, clickTimes: heard.clickTimes,
                         underrunsBefore: underrunsBefore, underruns: engine.outputBuffer.underruns,
                         bufferBefore: Double(bufferBefore.milliseconds), underrunsSaid: said.values.map { Double($0.milliseconds) },
                         bufferAfter: Double(engine.outputBuffer.size.milliseconds),
                         droppedPushes: playback.courseware.droppedPushes - droppedBefore, notes: notes.values)
    }

    /// One line for a log or a row's method.
    public var summary: String {
        func times(_ values: [Double]) -> String { values.prefix(10).map { String(format: "%.2f", $0) }.joined(separator: " ") }
        return "\(dropouts) dropouts [\(times(dropoutTimes))] (the longest silence \(formattedMilliseconds(longestSilence * 1000))), \(clicks) clicks [\(times(clickTimes))] over \(judgedSeconds) s; "
            + "\(underrunsUnderLoad) underruns under load, said with the buffer at \(underrunsSaid.map { formattedMilliseconds($0) }), buffer \(formattedMilliseconds(bufferBefore)) → \(formattedMilliseconds(bufferAfter)); "
            + "\(droppedPushes) pushes dropped" + (notes.isEmpty ? "" : "; noted \(notes)")
    }

    private func formattedMilliseconds(_ value: Double) -> String { "\(Int(value)) ms" }
}

/// Values appended from other threads (an engine observer, a debug-log watch), read at the end.
private final class Appended<Value: Sendable>: Sendable {
    private let stored = Mutex<[Value]>([])
    func append(_ value: Value) { stored.withLock { $0.append(value) } }
    var values: [Value] { stored.withLock { $0 } }
}
