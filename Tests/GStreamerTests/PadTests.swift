import Foundation
import Synchronization
import Testing
@testable import GStreamer

@Suite("Pads and probes")
struct PadTests {
    init() throws { try Support.start() }

    @Test("a blocking probe holds a running pipeline and removing it releases it")
    func blockingProbe() throws {
        let pipeline = try Pipeline.parse("audiotestsrc name=src is-live=true samplesperbuffer=480 ! identity name=gate ! fakesink name=out sync=true")
        let out = try #require(pipeline.element(named: "out"))
        let passed = Counter()
        let flowing = DispatchSemaphore(value: 0)
        let counter = try out.staticPad("sink").addProbe(.buffer) { _ in
            passed.increment()
            if passed.count == 10 { flowing.signal() }
            return .ok
        }
        try pipeline.setState(.playing)
        #expect(flowing.wait(timeout: .now() + 5) == .success)

        let gate = try #require(pipeline.element(named: "gate"))
        let blockedSignal = DispatchSemaphore(value: 0)
        let block = try #require(try gate.staticPad("src").addProbe(.blockDownstream) { _ in
            blockedSignal.signal()
            return .ok
        })
        #expect(blockedSignal.wait(timeout: .now() + 5) == .success)
        let atBlock = passed.count
        // 20 buffers' worth of real time (200 ms): nothing may pass while blocked.
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(200))
        #expect(passed.count == atBlock)
        #expect(try gate.staticPad("src").isBlocked)

        let resumed = DispatchSemaphore(value: 0)
        let watcher = try out.staticPad("sink").addProbe(.buffer) { _ in resumed.signal(); return .remove }
        block.remove()
        #expect(resumed.wait(timeout: .now() + 5) == .success)
        #expect(passed.count > atBlock)
        #expect(!block.isActive)
        try pipeline.setState(.null)
        _ = (counter, watcher)
    }

    @Test("an idle probe runs once and can relink while the pipeline plays")
    func idleProbe() throws {
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true samplesperbuffer=480 ! volume name=a ! fakesink name=out sync=true")
        try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        let volume = try #require(pipeline.element(named: "a"))
        let ran = Counter()
        let done = DispatchSemaphore(value: 0)
        let probe = try volume.staticPad("src").addProbe([.idle]) { _ in
            ran.increment()
            done.signal()
            return .remove
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        try pipeline.setState(.null)
        // Ran exactly once, and is gone: GStreamer removed it when the callback said so.
        #expect(ran.count == 1)
        #expect(probe == nil || probe?.isActive == false)
    }

    @Test("event probes see EOS")
    func eventProbe() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=3 ! fakesink name=out")
        let out = try #require(pipeline.element(named: "out"))
        let sawEOS = Counter()
        let probe = try out.staticPad("sink").addProbe(.eventDownstream) { info in
            if info.event?.isEndOfStream == true { sawEOS.increment() }
            return .ok
        }
        try Support.runToEnd(pipeline)
        #expect(sawEOS.count == 1)
        probe?.remove()
    }

    @Test("request pads come and go; sometimes pads arrive through pad-added")
    func requestAndSometimesPads() throws {
        let mixer = try ElementFactory.make("audiomixer", name: "rtc-mixer")
        let first = try mixer.requestPad("sink_%u")
        let second = try mixer.requestPad("sink_%u")
        #expect(first.name != second.name)
        #expect(first.direction == .sink)
        #expect(mixer.pads.count == 3)
        mixer.releaseRequestPad(first)
        #expect(mixer.pads.count == 2)
        #expect(throws: GStreamerError.noSuchPad(element: "rtc-mixer", pad: "nope_%u")) { try mixer.requestPad("nope_%u") }

        // A WAV file written here, decoded by decodebin, whose pad appears at runtime.
        let path = Support.temporaryPath(".wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Support.runToEnd(try Pipeline.parse("audiotestsrc num-buffers=20 ! wavenc ! filesink location=\(path)"))
        let pipeline = try Pipeline(name: "decode")
        let source = try ElementFactory.make("filesrc", properties: ["location": .string(path)])
        let decode = try ElementFactory.make("decodebin")
        let sink = try ElementFactory.make("fakesink", name: "decoded")
        try pipeline.add(source, decode, sink)
        try source.link(to: decode)
        let added = Mutex<[String]>([])
        let handler = decode.onPadAdded { pad in
            added.withLock { $0.append(pad.name) }
            if let sinkPad = try? sink.staticPad("sink") { try? pad.link(to: sinkPad) }
        }
        try Support.runToEnd(pipeline)
        #expect(added.withLock { $0 }.count == 1)
        handler.disconnect()
    }

    @Test("ghost pads expose a bin's inner pads")
    func ghostPads() throws {
        let bin = try Bin(name: "gain-stage")
        let volume = try ElementFactory.make("volume", properties: ["volume": 0.5])
        try bin.add(volume)
        try bin.addPad(try GhostPad(name: "sink", target: try volume.staticPad("sink")))
        try bin.addPad(try GhostPad(name: "src", target: try volume.staticPad("src")))

        let pipeline = try Pipeline()
        let source = try ElementFactory.make("audiotestsrc", properties: ["num-buffers": 5, "volume": 0.8])
        let sink = try AppSink.make()
        try sink.configure(caps: try Caps("audio/x-raw,format=F32LE,channels=1,rate=48000"), maxBuffers: 0, drop: false, sync: false)
        try pipeline.add(source, bin, sink)
        try source.link(to: bin)
        try bin.link(to: sink)
        try pipeline.setState(.playing)
        let samples = try #require(sink.pull(timeout: .seconds(5))?.buffer?.floatSamples())
        #expect(abs((samples.map { abs($0) }.max() ?? 0) - 0.4) < 0.01)
        try pipeline.setState(.null)
        let ghost = try #require(try bin.staticPad("src") as Pad?)
        #expect(ghost.isLinked)
    }

    @Test("a pad offset shifts running time and reads back")
    func padOffset() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=2 samplesperbuffer=480 ! appsink name=out sync=false")
        let sink = try pipeline.element(named: "out", as: AppSink.self)
        let pad = try sink.staticPad("sink")
        pad.offset = 250_000_000
        #expect(pad.offset == 250_000_000)
        try pipeline.setState(.playing)
        let sample = try #require(sink.pull(timeout: .seconds(5)))
        #expect(sample.runningTime == .milliseconds(250))
        try pipeline.setState(.null)
    }

    @Test("linking fails with the reason: format, hierarchy, already linked")
    func linkErrors() throws {
        func reason(_ body: () throws -> Void) -> PadLinkError.Reason? {
            do { try body() } catch let error as GStreamerError {
                if case .linkFailed(let link) = error { return link.reason }
            } catch {}
            return nil
        }
        let pipeline = try Pipeline()
        let tone = try ElementFactory.make("audiotestsrc", name: "tone")
        let videoOnly = try ElementFactory.make("capsfilter", name: "video-only", properties: ["caps": .caps(try Caps("video/x-raw"))])
        let first = try ElementFactory.make("fakesink", name: "first")
        let second = try ElementFactory.make("fakesink", name: "second")
        let outside = try ElementFactory.make("fakesink", name: "outside")
        try pipeline.add(tone, videoOnly, first, second)

        #expect(reason { try tone.link(to: videoOnly) } == .noFormat)
        #expect(reason { try tone.link(to: outside) } == .wrongHierarchy)
        #expect(reason { try tone.link(to: first, caps: try Caps("video/x-raw")) } == .noFormat)
        try tone.link(to: first)
        #expect(reason { try tone.staticPad("src").link(to: try second.staticPad("sink")) } == .wasLinked)
        #expect(reason { try first.staticPad("sink").link(to: try second.staticPad("sink")) } == .wrongDirection)
        let message = GStreamerError.linkFailed(PadLinkError(reason: .noFormat, source: "tone:src", sink: "video-only:sink")).description
        #expect(message.contains("tone:src") && message.contains("converter"))
    }
}
