import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// The output link's life, driven as the engine and the controller drive it, with a real sink
/// whose pad counts what it renders.
@Suite("Output link")
struct OutputLinkTests {
    init() throws { try EngineSupport.start() }

    /// A sink that renders `buffers` buffers once played, watched by a link.
    private func rig(buffers: Int) throws -> (Pipeline, OutputLink) {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=\(buffers) ! audio/x-raw,rate=48000,channels=2 ! fakesink name=sink sync=false")
        let sink = try #require(pipeline.element(named: "sink"))
        return (pipeline, OutputLink(sink: sink, answersCaps: false, caps: EngineGraph.outputFormat.caps))
    }

    private func play(_ pipeline: Pipeline) throws {
        try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        _ = pipeline.bus.waitForMessage(timeout: .seconds(5), after: {}) { message in
            if case .endOfStream = message.view { return true }
            return false
        }
        _ = try? pipeline.setState(.null)
    }

    @Test("the stream is up only after two rendered buffers, and not after a sink error")
    func upAfterTwoBuffers() throws {
        let (one, link) = try rig(buffers: 1)
        #expect(link.phase == .closed)
        link.starting()
        try play(one)
        #expect(link.phase == .connecting(rendered: 1))
        #expect(!link.streamIsUp)

        let (two, upLink) = try rig(buffers: 2)
        upLink.starting()
        try play(two)
        #expect(upLink.phase == .up)
        #expect(upLink.streamIsUp)
        #expect(upLink.sinkFailed())
        #expect(upLink.phase == .failed)
        #expect(!upLink.streamIsUp)
    }

    @Test("cork and uncork happen once each; a corked stream is still up")
    func cork() throws {
        let (pipeline, link) = try rig(buffers: 2)
        link.starting()
        try play(pipeline)
        #expect(link.cork())
        #expect(!link.cork())
        #expect(link.isCorked && link.streamIsUp)
        #expect(link.uncork())
        #expect(!link.uncork())
        #expect(link.phase == .up)
    }

    @Test("a loss survives the suspend, ends only when a restart renders, and recovery is tried at its pace")
    func lossAndRecovery() throws {
        let (pipeline, link) = try rig(buffers: 2)
        link.starting()
        #expect(link.lose(.device))
        #expect(!link.lose(.server))   // once lost, lost
        link.closing(discardingErrors: true)
        link.closed(reopening: true)
        #expect(link.isLost)
        #expect(!link.sinkFailed())   // the dead stream's error, before the restart's marker
        let attempt = try #require(link.recoveryAttempt(every: 250_000_000))
        #expect(attempt.loss == .device)
        #expect(link.recoveryAttempt(every: 250_000_000) == nil)   // not again within 250 ms
        #expect(link.recoveryAttempt(every: 0) != nil)

        link.starting()
        guard case .recovering(.device, let since, 0) = link.phase else { Issue.record("not recovering: \(link.phase)"); return }
        #expect(since == attempt.since)
        #expect(!link.isLost)
        try play(pipeline)
        #expect(link.phase == .up)
        link.staleErrorsPassed()
        #expect(link.sinkFailed())
    }

    @Test("a restart that fails leaves the loss in place, to be tried again")
    func failedRestart() throws {
        let (_, link) = try rig(buffers: 2)
        link.starting()
        #expect(link.lose(.server))
        _ = link.recoveryAttempt(every: 0)
        link.starting()
        link.closed(reopening: true)
        guard case .lost(.server, _, let lastAttempt) = link.phase else { Issue.record("not lost: \(link.phase)"); return }
        #expect(lastAttempt > 0)
    }
}
