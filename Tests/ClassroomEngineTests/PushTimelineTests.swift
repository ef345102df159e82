import Testing
@testable import ClassroomEngine
import GStreamer

@Suite("Push timeline: contiguous timestamps for audio pushed in real time")
struct PushTimelineTests {
    private let frame = ClockTime.milliseconds(10)

    @Test("pushes within the tolerance continue where the last one ended; a later one is re-anchored, counted and marked")
    func continuesAndResyncs() {
        let timeline = PushTimeline(tolerance: .milliseconds(40))
        #expect(timeline.stamp(now: .microseconds(1_003_217), duration: frame) == .microseconds(1_003_217))
        let continued = timeline.anchor(now: .microseconds(1_030_000), duration: frame)
        #expect(continued.pts == .microseconds(1_013_217) && !continued.discont)
        #expect(timeline.resyncCount == 0)
        let stalled = timeline.anchor(now: .milliseconds(2_000), duration: frame)
        #expect(stalled.pts == .milliseconds(2_000) && stalled.discont)
        #expect(timeline.resyncCount == 1)
        #expect(!timeline.anchor(now: .milliseconds(2_010), duration: frame).discont)
    }

    @Test("a bursty source is anchored its burst ahead of arrival: content a stride early or late continues; past that it is re-anchored")
    func bursts() {
        // scaletempo at 0.75×: 30 ms of audio every 26.7 ms, and every ninth push empty.
        let timeline = PushTimeline(tolerance: .milliseconds(20), burst: .milliseconds(30))
        #expect(timeline.stamp(now: .milliseconds(1_000), duration: .milliseconds(30)) == .milliseconds(1_030))
        var now = ClockTime.milliseconds(1_000)
        for push in 1...80 where push % 9 != 0 {
            now = ClockTime.milliseconds(1_000) + ClockTime.microseconds(push * 26_667)
            let placed = timeline.anchor(now: now, duration: .milliseconds(30))
            #expect(!placed.discont, "push \(push) at \(now) placed at \(placed.pts)")
        }
        #expect(timeline.resyncCount == 0)
        // Ahead by more than twice the burst plus the tolerance (a feed running fast): re-anchored.
        let ahead = PushTimeline(tolerance: .milliseconds(20), burst: .milliseconds(30))
        _ = ahead.stamp(now: .milliseconds(1_000), duration: .milliseconds(81))
        #expect(ahead.anchor(now: .milliseconds(1_030), duration: frame) == (.milliseconds(1_060), true))
        // Behind its arrival by more than the tolerance (a stall): re-anchored its burst ahead of now.
        let behind = PushTimeline(tolerance: .milliseconds(20), burst: .milliseconds(30))
        _ = behind.stamp(now: .milliseconds(1_000), duration: frame)
        #expect(behind.anchor(now: .milliseconds(1_061), duration: frame) == (.milliseconds(1_091), true))
        #expect(behind.resyncCount == 1)
    }

    @Test("on a grid, every anchor falls on a multiple of the frame, and continuations stay on it")
    func anchorsOnTheGrid() {
        let timeline = PushTimeline(tolerance: .milliseconds(40), grid: frame)
        #expect(timeline.stamp(now: .microseconds(3_949_983), duration: frame) == .milliseconds(3_940))
        #expect(timeline.stamp(now: .microseconds(3_961_000), duration: frame) == .milliseconds(3_950))
        #expect(timeline.stamp(now: .microseconds(5_000_700), duration: frame) == .milliseconds(5_000))
    }

    @Test("a restart places the next push at its arrival without counting a break, and marks that push only")
    func restart() {
        let timeline = PushTimeline(tolerance: .milliseconds(40))
        _ = timeline.stamp(now: .milliseconds(100), duration: frame)
        timeline.restart()
        let first = timeline.anchor(now: .milliseconds(115), duration: frame)
        #expect(first.pts == .milliseconds(115) && first.discont)
        let second = timeline.anchor(now: .milliseconds(125), duration: frame)
        #expect(second.pts == .milliseconds(125) && !second.discont)
        #expect(timeline.resyncCount == 0)
    }

    @Test("each push that continues the timeline counts how late it came after its place; anchors and early pushes count as on time")
    func lateness() {
        let timeline = PushTimeline(tolerance: .milliseconds(40))
        #expect(timeline.lateness.percentile(0.99) == nil)
        _ = timeline.stamp(now: .milliseconds(1_000), duration: frame)   // the anchor: not counted
        _ = timeline.stamp(now: .milliseconds(1_008), duration: frame)   // 2 ms early (its place is 1010)
        _ = timeline.stamp(now: .microseconds(1_034_500), duration: frame) // 14.5 ms late (1020)
        _ = timeline.stamp(now: .milliseconds(1_033), duration: frame)   // 3 ms late (1030)
        _ = timeline.stamp(now: .milliseconds(1_300), duration: frame)   // beyond the tolerance: re-anchored, not counted
        let late = timeline.lateness
        #expect(late.count == 3)
        #expect(late.largest == .microseconds(14_500))
        #expect(late.percentile(0.5) == .milliseconds(4))    // the middle push, 3 ms, to the ms above
        #expect(late.percentile(0.99) == .milliseconds(15))
        #expect(timeline.resyncCount == 1)
    }
}
