import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Echo-path estimator (GCC-PHAT)")
struct EchoPathEstimatorTests {
    /// A deterministic speech stand-in: noise bursts with pauses, like syllables.
    private static func farEnd(seconds: Double) -> [Int16] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<Int(seconds * 48_000)).map { index in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Double(Int64(bitPattern: state) >> 40) / Double(1 << 23)
            let syllable = (index / 9_600).isMultiple(of: 3) ? 0.05 : 1.0
            return Int16(noise * syllable * 8_000)
        }
    }

    /// What the mic hears of `far`: each path (ms, gain) through a short decaying tail (reflections), under noise.
    private static func echo(of far: [Int16], paths: [(milliseconds: Int, gain: Double)]) -> [Int16] {
        var mic = [Int16](repeating: 0, count: far.count)
        var noise: UInt64 = 42
        for index in mic.indices {
            var sum = 0.0
            for path in paths {
                for (tap, gain) in [(0, 1.0), (240, 0.4), (700, 0.2), (1_500, 0.1)] where index - path.milliseconds * 48 - tap >= 0 {
                    sum += Double(far[index - path.milliseconds * 48 - tap]) * gain * path.gain
                }
            }
            noise = noise &* 6_364_136_223_846_793_005 &+ 1
            mic[index] = Int16(max(-32_768, min(32_767, sum + Double(Int64(bitPattern: noise) >> 56))))
        }
        return mic
    }

    /// Which timestamps step, where, and by how much.
    struct Step: Sendable, CustomTestStringConvertible {
        let side: Side, frame: Int, milliseconds: Int
        enum Side: Sendable { case microphone, farEnd }
        var testDescription: String { "\(side == .microphone ? "capture" : "play") times +\(milliseconds) ms" }
    }

    /// Feeds `far` by play time and `mic` by capture time in 10 ms frames from 5 s, as the taps
    /// do, analysing every 500 ms; one side's timestamps move `step` later from its frame on.
    /// Returns the estimator's latest analysis after each analysis, by the second it ran.
    @discardableResult
    private static func feed(_ estimator: EchoPathEstimator, far: [Int16], mic: [Int16],
                             step: Step? = nil) -> [(seconds: Double, latest: EchoPathEstimate?)] {
        let base: UInt64 = 5_000_000_000
        var analyses: [(seconds: Double, latest: EchoPathEstimate?)] = []
        for frame in 0..<(far.count / 480) {
            let time = base + UInt64(frame) * 10_000_000
            func shift(_ side: Step.Side) -> UInt64 {
                guard let step, step.side == side, frame >= step.frame else { return 0 }
                return UInt64(step.milliseconds) * 1_000_000
            }
            estimator.recordFarEnd(Array(far[(frame * 480)..<((frame + 1) * 480)]), channels: 1, playTime: ClockTime(nanoseconds: time + shift(.farEnd)))
            estimator.recordMicrophone(Array(mic[(frame * 480)..<((frame + 1) * 480)]), channels: 1,
                                       captureTime: ClockTime(nanoseconds: time + shift(.microphone)))
            if frame % 50 == 49 {
                estimator.analyseLatest()
                analyses.append((Double(frame + 1) / 100, estimator.latest))
            }
        }
        return analyses
    }

    /// The far end plays at its own time; the mic hears it `path` later, 6 dB down.
    private func estimate(path: Int, seconds: Double = 6) -> EchoPathEstimator {
        let estimator = EchoPathEstimator { _ in }
        let far = Self.farEnd(seconds: seconds)
        Self.feed(estimator, far: far, mic: Self.echo(of: far, paths: [(path, 0.5)]))
        return estimator
    }

    private static func milliseconds(_ estimate: EchoPathEstimate?) -> Double? {
        estimate.map { Double($0.delay.nanoseconds) / 1e6 }
    }

    @Test("finds echo paths from 0 to 400 ms within 10 ms", arguments: [0, 60, 150, 300, 400])
    func findsPath(milliseconds: Int) throws {
        let estimator = estimate(path: milliseconds)
        let applied = try #require(estimator.applied)
        print("FIGURE echo path \(milliseconds) ms estimated \(applied)")
        #expect(abs(Double(applied.delay.nanoseconds) / 1e6 - Double(milliseconds)) <= 10)
        #expect(applied.confidence >= 0.25)
    }

    @Test("stays silent when the far end is silent")
    func silentFarEnd() {
        let estimator = EchoPathEstimator { _ in }
        for frame in 0..<300 {
            let time = ClockTime(nanoseconds: 1_000_000_000 + UInt64(frame) * 10_000_000)
            estimator.recordFarEnd([Int16](repeating: 0, count: 480), channels: 1, playTime: time)
            estimator.recordMicrophone([Int16](repeating: 300, count: 480), channels: 1, captureTime: time)
            if frame % 50 == 49 { estimator.analyseLatest() }
        }
        #expect(estimator.applied == nil)
    }

    @Test("a wrong path in force gives way to the true one")
    func wrongPathGivesWay() throws {
        let applied = Mutex<[EchoPathEstimate]>([])
        let estimator = EchoPathEstimator { estimate in applied.withLock { $0.append(estimate) } }
        estimator.impose(EchoPathEstimate(delay: .milliseconds(188), confidence: 1))
        let far = Self.farEnd(seconds: 6)
        Self.feed(estimator, far: far, mic: Self.echo(of: far, paths: [(40, 0.5)]))
        let path = try #require(Self.milliseconds(estimator.applied))
        print("FIGURE echo path: 188 ms forced in, true 40 ms: applied \(applied.withLock { $0.map(\.description) })")
        #expect(abs(path - 40) <= 10)
    }

    /// A second path as strong as the first (a late reflection off a wall behind the speaker): a
    /// canceller moved there cancels no more than where it is.
    @Test("a rival path that lines up no more of the echo does not move the canceller", arguments: [false, true])
    func rivalPathDoesNotMove(guarded: Bool) throws {
        var settings = EchoPathEstimator.Settings()
        if !guarded { settings.betterBy = 0 }
        let estimator = EchoPathEstimator(settings: settings) { _ in }
        let far = Self.farEnd(seconds: 10)
        let first = Self.echo(of: far, paths: [(60, 0.5)]), both = Self.echo(of: far, paths: [(60, 0.5), (250, 0.6)])
        let switchAt = 4 * 48_000
        Self.feed(estimator, far: far, mic: Array(first[..<switchAt] + both[switchAt...]))
        let latest = try #require(Self.milliseconds(estimator.latest)), path = try #require(Self.milliseconds(estimator.applied))
        print("FIGURE echo path: 60 ms in force, a rival at 250 ms \(guarded ? "with" : "without") the guard: latest analysis \(latest) ms, applied \(path) ms")
        // The rival is what the analyses point at: without the guard the canceller follows it.
        #expect(abs(latest - 250) <= 10)
        #expect(abs(path - (guarded ? 60 : 250)) <= 10)
    }

    /// A capture that stalls and comes back stamped 170 ms late makes the same room read 60 + 170 ms;
    /// an output latency raised by 20 ms stamps the far end later and makes it read 60 − 20 ms.
    @Test("a step in the capture or play timestamps starts the search afresh, no window straddles it", arguments: [
        (Step(side: .microphone, frame: 400, milliseconds: 170), 230.0, 5.19),
        (Step(side: .farEnd, frame: 400, milliseconds: 20), 40.0, 5.62),
    ])
    func timestampStepRestarts(step: Step, newPath: Double, firstWhole: Double) throws {
        let estimator = EchoPathEstimator { _ in }
        let far = Self.farEnd(seconds: 10)
        let analyses = Self.feed(estimator, far: far, mic: Self.echo(of: far, paths: [(60, 0.5)]), step: step)
        let before = analyses.filter { $0.seconds <= 4 }.compactMap { Self.milliseconds($0.latest) }
        let after = analyses.filter { $0.seconds > 4 }.map { ($0.0, Self.milliseconds($0.latest) ?? -1) }
        print("FIGURE echo path: \(step.testDescription) at 4 s: analyses after it \(after.map { "\($0.0) s: \($0.1) ms" }), restarts \(estimator.restarts)")
        #expect(estimator.restarts == 1)
        #expect(before.last.map { abs($0 - 60) <= 10 } == true)
        // No analysis until a whole window (and the far end it searches) lies after the step:
        // until then the last analysis stays the old one, then every one finds the new path.
        let old = after.prefix { $0.0 < firstWhole }, new = after.drop { $0.0 < firstWhole }
        #expect(!old.isEmpty && old.allSatisfy { abs($0.1 - 60) <= 10 })
        #expect(!new.isEmpty && new.allSatisfy { abs($0.1 - newPath) <= 10 })
        let path = try #require(Self.milliseconds(estimator.applied))
        #expect(abs(path - newPath) <= 10)
    }
}
