import Foundation
import Synchronization
import Testing
@testable import GStreamer

/// A live mixer's first buffers leave on the clock when the running time was started before the
/// pipeline (WORKAROUNDS §29): left to the pipeline, the mixer had the clock before its base time,
/// and this test saw 607 of 789 buffers in 20 starts sent up to 3.0 s before their deadline.
@Suite("A live mixer starts on the clock")
struct LiveMixerStartTests {
    init() throws { try Support.start() }

    @Test("20 starts of a force-live audiomixer with the running time started first: no buffer leaves before its deadline")
    func noBurstAtStart() throws {
        let latency = ClockTime.milliseconds(40)
        var early: [ClockTime] = []
        var buffers = 0
        for _ in 0..<20 {
            // The engine's chain after its mixer, with nothing feeding it: each buffer is due at its end + the mixer's latency.
            let pipeline = try Pipeline.parse("audiomixer name=mix force-live=true latency=\(latency.nanoseconds) output-buffer-duration=10000000 "
                                              + "! audio/x-raw,format=S16LE,rate=48000,channels=2 ! volume ! level ! fakesink sync=false async=false")
            pipeline.useClock(try Clock.system())
            let seen = Mutex<(count: Int, early: [ClockTime])>((0, []))
            let mixer = try #require(pipeline.element(named: "mix"))
            let probe = try mixer.staticPad("src").addProbe(.buffer) { info in
                guard let buffer = info.buffer, let pts = buffer.pts, let duration = buffer.duration, let now = pipeline.currentRunningTime else { return .ok }
                let deadline = pts + duration + latency
                // 2 ms for the clock wait's own granularity.
                seen.withLock { $0.count += 1; if now + .milliseconds(2) < deadline { $0.early.append(deadline - now) } }
                return .ok
            }
            pipeline.startRunningTimeNow()
            try pipeline.setState(.playing, waitingUpTo: .seconds(5))
            Thread.sleep(forTimeInterval: 0.15)
            try pipeline.setState(.null)
            withExtendedLifetime(probe) {}
            let (count, late) = seen.withLock { ($0.count, $0.early) }
            buffers += count
            early += late
        }
        print("FIGURE live mixer start: \(buffers) buffers in 20 starts, \(early.count) before their deadline (most \(early.max()?.description ?? "-") early)")
        #expect(buffers >= 20 * 5, "the mixer produced \(buffers) buffers in 20 × 150 ms")
        #expect(early.isEmpty, "\(early.count) buffers sent before their deadline, the most by \(early.max()?.description ?? "-")")
    }
}
