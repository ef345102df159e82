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

    /// The far end plays at its own time; the mic hears it `path` later, through a short decaying
    /// tail (reflections), 6 dB down, under noise.
    private func estimate(path: Int, seconds: Double = 6) -> EchoPathEstimator {
        let applied = Mutex<[EchoPathEstimate]>([])
        let estimator = EchoPathEstimator { estimate in applied.withLock { $0.append(estimate) } }
        let far = Self.farEnd(seconds: seconds)
        let shift = path * 48
        var mic = [Int16](repeating: 0, count: far.count)
        var noise: UInt64 = 42
        for index in mic.indices {
            var sum = 0.0
            for (tap, gain) in [(0, 0.5), (240, 0.2), (700, 0.1), (1_500, 0.05)] where index - shift - tap >= 0 {
                sum += Double(far[index - shift - tap]) * gain
            }
            noise = noise &* 6_364_136_223_846_793_005 &+ 1
            mic[index] = Int16(sum + Double(Int64(bitPattern: noise) >> 56))
        }
        let base: UInt64 = 5_000_000_000
        for frame in 0..<(far.count / 480) {
            let time = ClockTime(nanoseconds: base + UInt64(frame) * 10_000_000)
            estimator.recordFarEnd(Array(far[(frame * 480)..<((frame + 1) * 480)]), channels: 1, playTime: time)
            estimator.recordMicrophone(Array(mic[(frame * 480)..<((frame + 1) * 480)]), channels: 1, captureTime: time)
            if frame % 50 == 49 { estimator.analyseLatest() }
        }
        return estimator
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
}
