import Foundation
import Testing
@testable import GStreamer

@Suite("Pipelines, states, clocks, queries and events")
struct PipelineTests {
    init() throws { try Support.start() }

    /// Writes a 1 s mono 48 kHz WAV and returns its path.
    private func oneSecondWAV() throws -> String {
        let path = Support.temporaryPath(".wav")
        try Support.runToEnd(try Pipeline.parse("audiotestsrc num-buffers=100 samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=1 ! wavenc ! filesink location=\(path)"))
        return path
    }

    @Test("elements are added, found by name and removed")
    func addFindRemove() throws {
        let pipeline = try Pipeline(name: "engine")
        let volume = try ElementFactory.make("volume", name: "master-volume")
        try pipeline.add(volume)
        #expect(pipeline.element(named: "master-volume")?.isSame(as: volume) == true)
        #expect(volume.parent?.isSame(as: pipeline) == true)
        #expect(pipeline.children.map(\.name) == ["master-volume"])
        #expect(throws: GStreamerError.addFailed(element: "master-volume", bin: "engine")) { try pipeline.add(volume) }
        #expect(throws: GStreamerError.self) { try pipeline.element(named: "master-volume", as: AppSource.self) }
        try pipeline.remove(volume)
        #expect(pipeline.element(named: "master-volume") == nil)
        #expect(throws: GStreamerError.removeFailed(element: "master-volume", bin: "engine")) { try pipeline.remove(volume) }
    }

    @Test("state changes report success, async and no-preroll, and waits are bounded")
    func stateChanges() throws {
        let live = try Pipeline.parse("audiotestsrc is-live=true ! fakesink")
        #expect(try live.setState(.paused) == .noPreroll)
        try live.setState(.null)

        let file = try Pipeline.parse("audiotestsrc ! fakesink")
        #expect(try file.setState(.paused) == .async)
        let settled = file.currentState(waitingUpTo: .seconds(5))
        #expect(settled.current == .paused)
        try file.setState(.null)

        // An appsrc that never pushes cannot preroll: the wait must end, with a typed error.
        let starved = try Pipeline.parse("appsrc name=never caps=audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved ! fakesink")
        #expect(throws: GStreamerError.stateChangeTimedOut(element: starved.name, target: .paused, waited: .milliseconds(300))) {
            try starved.setState(.paused, waitingUpTo: .milliseconds(300))
        }
        try starved.setState(.null)
        // The same wait gives up on a failure reported elsewhere (an error on the bus), typed as a failure.
        var asked = 0
        #expect(throws: GStreamerError.stateChangeFailed(element: starved.name, target: .paused, error: nil, debug: "an error was posted while it changed state")) {
            try starved.setState(.paused, waitingUpTo: .seconds(60)) { asked += 1; return asked > 3 }
        }
        #expect(asked == 4)
        #expect(throws: GStreamerError.stateChangeTimedOut(element: starved.name, target: .paused, waited: .milliseconds(100))) {
            try starved.setState(.paused, waitingUpTo: .milliseconds(100)) { false }
        }
        try starved.setState(.null)

        let broken = try Pipeline.parse("filesrc location=/nonexistent ! fakesink")
        #expect(throws: GStreamerError.self) { try broken.setState(.paused) }
        try broken.setState(.null)
    }

    @Test("the pipeline can be pinned to the system clock")
    func systemClock() throws {
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true ! fakesink")
        let system = try Clock.system()
        pipeline.useClock(system)
        try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        #expect(pipeline.clock?.isSame(as: system) == true)
        #expect(pipeline.pipelineClock.isSame(as: system))
        #expect(pipeline.baseTime != nil)
        #expect(pipeline.currentRunningTime != nil)
        try pipeline.setState(.null)
        pipeline.useClock(nil)
    }

    @Test("position and duration are nil before preroll and real after; seeking moves the position")
    func queriesAndSeek() throws {
        let path = try oneSecondWAV()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pipeline = try Pipeline.parse("filesrc location=\(path) ! wavparse ! fakesink sync=false")
        #expect(pipeline.position() == nil)
        try pipeline.setState(.paused, waitingUpTo: .seconds(5))
        let duration = try #require(pipeline.duration())
        #expect(abs(duration.seconds - 1.0) < 0.001)
        try pipeline.seek(to: .milliseconds(500))
        _ = pipeline.currentState(waitingUpTo: .seconds(5))
        let position = try #require(pipeline.position())
        #expect(abs(position.seconds - 0.5) < 0.02)
        try pipeline.setState(.null)
    }

    @Test("a latency query sees a live source; the pipeline latency can be fixed")
    func latency() throws {
        // Only a syncing sink asks upstream for latency; processing-deadline=0 keeps the sink's
        // own 20 ms default out of the figure, leaving the source's one buffer (10 ms).
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true samplesperbuffer=480 ! audio/x-raw,rate=48000 ! queue ! fakesink sync=true processing-deadline=0")
        try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        let latency = try pipeline.latency()
        #expect(latency.isLive)
        #expect(latency.minimum == .milliseconds(10))
        #expect(pipeline.recalculateLatency())
        pipeline.configuredLatency = .milliseconds(40)
        #expect(pipeline.configuredLatency == .milliseconds(40))
        pipeline.configuredLatency = nil
        #expect(pipeline.configuredLatency == nil)
        try pipeline.setState(.null)
    }

    @Test("a sink pad asks its peer what is upstream; an element says its latency changed")
    func peerLatencyAndMessage() throws {
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true samplesperbuffer=480 ! audio/x-raw,rate=48000 ! queue name=q ! fakesink name=sink sync=true")
        try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        defer { _ = try? pipeline.setState(.null) }
        let sink = try #require(pipeline.element(named: "sink"))
        let upstream = try #require(try sink.staticPad("sink").peerLatency())
        #expect(upstream.isLive)
        #expect(upstream.minimum == .milliseconds(10))   // the source's one buffer; the sink's own deadline is not upstream
        // An unlinked pad has no peer to ask.
        #expect(try ElementFactory.make("fakesink").staticPad("sink").peerLatency() == nil)
        let queue = try #require(pipeline.element(named: "q"))
        let message = pipeline.bus.waitForMessage(timeout: .seconds(2), after: { queue.postLatencyMessage() }) { message in
            if case .latency = message.view { return message.source == "q" }
            return false
        }
        #expect(message != nil)
    }

    @Test("an EOS event sent to a live pipeline ends it")
    func endOfStreamEvent() throws {
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true ! fakesink")
        try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        let eos = try pipeline.bus.waitForMessage(timeout: .seconds(5), after: { () throws(GStreamerError) in try pipeline.send(try Event.endOfStream()) }) {
            if case .endOfStream = $0.view { return true }
            return false
        }
        #expect(eos != nil)
        try pipeline.setState(.null)
    }

    @Test("ClockTime treats NONE as nil and formats like GStreamer")
    func clockTime() {
        #expect(ClockTime(raw: .max) == nil)
        #expect(ClockTime.frames(480, rate: 48_000) == .milliseconds(10))
        #expect(ClockTime.seconds(1.5).description == "0:00:01.500000000")
        #expect(ClockTime.milliseconds(5) - ClockTime.milliseconds(10) == .zero)
    }

    @Test("every pipeline in pipelines/ parses")
    func pipelineDescriptions() throws {
        let folder = Support.repositoryRoot.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".gst") }.sorted()
        #expect(files.count >= 3)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let description = text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
                .joined(separator: "\n")
            let pipeline = try Pipeline.parse(description)
            #expect(!pipeline.children.isEmpty, "\(file) built an empty pipeline")
        }
    }
}
