import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// A source that changes its own delay on purpose (an adaptive jitter buffer) re-anchors its
/// input, and the mix places its audio where it now says, not where it would have continued.
@Suite("Re-anchoring an input")
struct ReanchorTests {
    init() throws { try EngineSupport.start() }

    @Test("after a 30 ms pause and reanchor(), the next push plays at its own running time, not 30 ms early where the old timeline went on")
    func reanchoredPushPlaysWhereStamped() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let input = try engine.addRTCInput(id: "rtc-teacher", format: AudioFormat(format: .s16, rate: 48_000, channels: 1))
        #expect(await OutputWarmUp.settle(engine))
        let onset = Locked<ClockTime?>(nil)
        let tap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts, onset.withLock({ $0 == nil }) else { return }
            if let index = buffer.int16Samples().firstIndex(where: { $0 > 10_000 }) {
                onset.withLock { $0 = pts + .frames(index / 2, rate: 48_000) }
            }
        }
        defer { tap?.remove() }
        let silence = [Int16](repeating: 0, count: 480)
        var marker = silence
        marker[0] = 20_000
        let start = ContinuousClock.now
        for index in 0..<100 {   // 1 s of 10 ms frames, paced on absolute deadlines
            _ = try input.push(silence)
            try await Task.sleep(until: start + .milliseconds(10 * (index + 1)), clock: .continuous)
        }
        try await Task.sleep(for: .milliseconds(30))   // the source now holds its audio 30 ms longer
        input.reanchor()
        let stamped = try #require(engine.runningTime)
        _ = try input.push(marker)
        for _ in 0..<30 {
            _ = try input.push(silence)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await waitFor { onset.withLock { $0 } != nil })
        let placed = try #require(onset.withLock { $0 })
        let offset = (Double(placed.nanoseconds) - Double(stamped.nanoseconds)) / 1e6
        print("FIGURE reanchored marker placed \(String(format: "%.1f", offset)) ms from the running time it was pushed at")
        // Kept contiguous (no DISCONT), it was placed about 30 ms early: the pause never reached the mix.
        #expect(abs(offset) < 5)
    }
}
