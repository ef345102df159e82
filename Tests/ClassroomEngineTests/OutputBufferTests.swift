@testable import ClassroomEngine
import GStreamer
import Testing

@Suite("The output buffer's policy: up a step per underrun the device reports, never down, settling ignored")
struct OutputBufferTests {
    private let second: UInt64 = 1_000_000_000
    private let start = OutputBuffer.start
    private let one = OutputBuffer.start + OutputBuffer.step
    private let two = OutputBuffer.start + OutputBuffer.step + OutputBuffer.step

    @Test("adaptive: the start (30 ms), then a step (20 ms) more at each underrun a raise apart; one raise at a time; the ceiling holds")
    func adaptiveSteps() {
        let buffer = OutputBuffer(setting: .adaptive)
        buffer.opened(now: 0)
        #expect(buffer.size == start)
        #expect(buffer.underrun(now: 5 * second) == nil, "an underrun while the server settles the stream counts for nothing")
        #expect(buffer.underruns == 0)
        #expect(buffer.underrun(now: 7 * second) == one)
        #expect(buffer.underrun(now: 7 * second + 1) == nil, "a second underrun while the raise is on its way is the same stall")
        buffer.raised(to: one, made: true, now: 8 * second)
        #expect(buffer.size == one)
        #expect(buffer.underrun(now: 8 * second + second / 2) == nil, "the reopened stream fills for a second")
        #expect(buffer.underrun(now: 10 * second) == two)
        buffer.raised(to: two, made: true, now: 10 * second)
        #expect(buffer.underruns == 2)
        var now = 12 * second
        while buffer.size < OutputBuffer.ceiling {
            guard let size = buffer.underrun(now: now) else { Issue.record("an underrun past settling was ignored"); return }
            buffer.raised(to: size, made: true, now: now)
            now += 2 * second
        }
        #expect(buffer.size == .milliseconds(200))
        #expect(buffer.underrun(now: now) == .milliseconds(200), "at the ceiling an underrun is said with the same size")
    }

    @Test("a raise that could not be made (the stream corked or lost) leaves the size, and the next underrun tries again")
    func raiseNotMade() {
        let buffer = OutputBuffer(setting: .adaptive)
        buffer.opened(now: 0)
        #expect(buffer.underrun(now: 7 * second) == one)
        buffer.raised(to: one, made: false, now: 7 * second)
        #expect(buffer.size == start)
        #expect(buffer.underrun(now: 7 * second + 1) == one)
    }

    @Test("the server starting to play the stream restarts the settling but keeps a raise on its way; a reopen voids it")
    func settlingKeepsARaise() {
        let buffer = OutputBuffer(setting: .adaptive)
        buffer.opened(now: 0)
        #expect(buffer.underrun(now: 7 * second) == one)
        buffer.settling(from: 7 * second)
        #expect(buffer.underrun(now: 12 * second) == nil, "the server settles the stream from when it began to play")
        #expect(buffer.underrun(now: 14 * second) == nil, "past the settling, the raise decided before is still on its way")
        #expect(buffer.underruns == 1)
        buffer.opened(now: 20 * second)
        buffer.settling(from: 0)
        #expect(buffer.underrun(now: 25 * second) == nil, "settling never shortens a wait already running")
        #expect(buffer.underrun(now: 27 * second) == one, "a reopened stream has no raise on its way")
    }

    @Test("fixed: the size never moves, and every stall past settling is counted once")
    func fixedHolds() {
        let buffer = OutputBuffer(setting: .fixed(.milliseconds(60)))
        buffer.opened(now: 0)
        #expect(buffer.size == .milliseconds(60))
        #expect(buffer.underrun(now: 7 * second) == .milliseconds(60))
        #expect(buffer.underrun(now: 7 * second + 11_000_000) == nil, "the server underflowing again as the stream refills is the same stall")
        #expect(buffer.underrun(now: 8 * second) == .milliseconds(60))
        #expect(buffer.underruns == 2 && buffer.size == .milliseconds(60))
    }

    @Test("the pipeline latency is the mixer's wait, one 10 ms block and the output buffer")
    func latencyCovers() {
        var configuration = AudioEngine.Configuration()
        configuration.outputBuffer = .fixed(.milliseconds(60))
        #expect(configuration.pipelineLatency == configuration.mixerLatency + .milliseconds(70))
        #expect(configuration.pipelineLatency(outputBuffer: .milliseconds(100)) == configuration.mixerLatency + .milliseconds(110))
    }
}
