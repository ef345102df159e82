import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// The stand-in for an error decodebin2 drops (WORKAROUNDS §32): a demuxer whose loop stopped
/// before it exposed a stream is found, and one that exposed its streams never is.
@Suite("A demuxer that stopped without a stream", .serialized)
struct StalledDemuxerTests {
    init() throws { try EngineSupport.start() }

    @Test("qtdemux on an MP4 cut before its moov stops with no stream, and is found")
    func truncatedMP4IsFound() throws {
        let scratch = try EngineSupport.scratchFolder("stalled")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = try ReliabilityTests.truncatedMP4(in: scratch)
        let pipeline = try Pipeline.parse("filesrc location=\(file.path) ! qtdemux name=demux")
        defer { _ = try? pipeline.setState(.null) }
        #expect(StalledDemuxer.find(in: pipeline) == nil, "not started yet")
        // No decodebin here, so the demuxer's error reaches the bus: it says the loop has stopped.
        let error = try pipeline.bus.waitForMessage(timeout: .seconds(10), after: { () throws(GStreamerError) in try pipeline.setState(.paused) }) { message in
            if case .error = message.view { return true }
            return false
        }
        let posted = try #require(error, "qtdemux posted no error on a file cut before its moov")
        print("qtdemux said: \(posted.view)")
        // The error leaves the demuxer's streaming thread before its loop lets go of the stream
        // lock, and find() wants the lock free: so the stalled state is waited for, within a bound.
        let deadline = ContinuousClock.now + .seconds(5)
        var found = StalledDemuxer.find(in: pipeline)
        while found == nil, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            found = StalledDemuxer.find(in: pipeline)
        }
        let stalled = try #require(found, "qtdemux's loop never stopped with its stream lock free within 5 s of its error")
        #expect(stalled.name == "demux")
        #expect(stalled.failure(uri: file.absoluteString).problem == .damaged)
    }

    @Test("a demuxer that exposed its stream is never taken for stalled, while it prerolls, plays or after its end")
    func workingDemuxerIsNot() throws {
        let file = ReliabilityTests.samplesURL.appendingPathComponent("live-feed.ogg")
        let pipeline = try Pipeline.parse("uridecodebin uri=\(file.absoluteString) ! fakesink sync=false")
        defer { _ = try? pipeline.setState(.null) }
        let stalls = Locked(0)
        let looks = Locked(0)
        let end = try pipeline.bus.waitForMessage(timeout: .seconds(20), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            // Looked at with every message, from the bus's thread, while the file plays through.
            looks.withLock { $0 += 1 }
            if StalledDemuxer.find(in: pipeline) != nil { stalls.withLock { $0 += 1 } }
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        let ended = try #require(end)
        guard case .endOfStream = ended.view else { Issue.record("the sample did not play: \(ended.view)"); return }
        let demuxers = pipeline.descendants.filter { $0.klass.contains("Demuxer") }
        #expect(demuxers.map(\.factoryName) == ["oggdemux"], "the sample is demuxed by oggdemux inside decodebin")
        // Its loop is paused at the end as on a damaged file: the stream it exposed is what tells them apart.
        #expect(demuxers.first?.pads.first { $0.direction == .sink }?.taskState == .paused, "oggdemux reads in pull mode and pauses at its end")
        #expect(StalledDemuxer.find(in: pipeline) == nil, "after its end of stream")
        #expect(stalls.withLock { $0 } == 0, "taken for stalled in \(stalls.withLock { $0 }) of \(looks.withLock { $0 }) looks")
    }
}
