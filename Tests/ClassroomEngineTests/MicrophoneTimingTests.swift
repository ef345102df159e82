import Foundation
import Synchronization
import Testing
@testable import ClassroomEngine
import GStreamer

/// The uplink's timestamps are the canceller's alignment and the receivers' timing: they must say
/// when each sample was captured, whatever the microphone lost on the way.
@Suite("Microphone timing")
struct MicrophoneTimingTests {
    init() throws { try EngineSupport.start() }

    /// CI once read the 150 ms echo path as 140 ms and the uplink as 20 ms late for a whole run: a
    /// lost 10 ms buffer, which the framing took for jitter and hid by stamping every later frame
    /// 10 ms before its samples.
    @Test("after a lost 10 ms microphone buffer every later frame keeps its capture time")
    func lostBufferKeepsTimestamps() async throws {
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let peaks = Mutex<[ClockTime: Int]>([:])
        let uplink = try engine.connectMicrophone(.pushed, processing: .off) { frame in
            guard let pts = frame.timestamp else { return }
            let peak = frame.samples.map { Int($0.magnitude) }.max() ?? 0
            peaks.withLock { $0[pts] = peak }
        }
        let mic = try #require(uplink.pushedInput)
        let frame = EngineGraph.frameDuration
        let now = try #require(engine.runningTime)
        let start = ClockTime(nanoseconds: (now.nanoseconds / frame.nanoseconds + 20) * frame.nanoseconds)
        let lost = 30, marked = 60, frames = 100
        for index in 0..<frames where index != lost {
            let value: Int16 = index == marked ? 8000 : 0
            _ = try mic.push([Int16](repeating: value, count: 480), pts: start + ClockTime(nanoseconds: UInt64(index) * frame.nanoseconds))
        }
        let last = start + ClockTime(nanoseconds: UInt64(frames - 1) * frame.nanoseconds)
        #expect(await waitFor(timeout: .seconds(4)) { peaks.withLock { $0[last] != nil } })

        let heard = peaks.withLock { $0 }
        let at = { (index: Int) in heard[start + ClockTime(nanoseconds: UInt64(index) * frame.nanoseconds)] }
        let missing = (0..<frames).filter { $0 != lost && at($0) == nil }
        #expect(missing.isEmpty, "uplink frames missing at \(missing) (10 ms steps from the first push)")
        #expect(at(lost) == nil || at(lost) == 0, "the lost buffer's place holds a peak of \(String(describing: at(lost)))")
        #expect((at(marked) ?? 0) >= 7900, "the marked frame's own time holds a peak of \(String(describing: at(marked)))")
        #expect(at(marked - 1) == 0 && at(marked + 1) == 0,
                "the mark spilled into its neighbours: \(String(describing: at(marked - 1))) before, \(String(describing: at(marked + 1))) after")
    }
}
