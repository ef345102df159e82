import Foundation
import Synchronization
import Testing
@testable import GStreamer

@Suite("appsrc and appsink")
struct AppSourceSinkTests {
    init() throws { try Support.start() }

    private let format = AudioFormat(format: .s16, rate: 48_000, channels: 2)

    /// appsrc ! appsink, non-live, not synced: everything pushed comes out.
    private func loopback() throws -> (Pipeline, AppSource, AppSink) {
        let pipeline = try Pipeline(name: "loopback")
        let source = try AppSource.make(name: "push")
        try source.configure(audio: format, isLive: false, doTimestamp: false, limits: .init(buffers: 64), whenFull: .block)
        let sink = try AppSink.make(name: "pull")
        try sink.configure(caps: format.caps, maxBuffers: 0, drop: false, sync: false)
        try pipeline.add(source, sink)
        try source.link(to: sink)
        return (pipeline, source, sink)
    }

    @Test("samples pushed through appsrc come out of appsink identical, with their timestamps")
    func identicalRoundTrip() throws {
        let (pipeline, source, sink) = try loopback()
        try pipeline.setState(.playing)
        var sent: [[Int16]] = []
        for index in 0..<10 {
            // 10 ms stereo frames with a distinct ramp per buffer.
            let samples = (0..<960).map { Int16(truncatingIfNeeded: index * 1000 + $0 - 480) }
            sent.append(samples)
            let outcome = try source.push(samples, pts: .milliseconds(index * 10))
            #expect(outcome == .queued)
        }
        try source.endOfStream()
        for (index, expected) in sent.enumerated() {
            let sample = try #require(sink.pull(timeout: .seconds(5)))
            let buffer = try #require(sample.buffer)
            #expect(buffer.int16Samples() == expected)
            #expect(buffer.pts == .milliseconds(index * 10))
            #expect(buffer.duration == .milliseconds(10))
            #expect(sample.caps?.audioFormat == format)
        }
        #expect(sink.pull(timeout: .seconds(2)) == nil)
        #expect(sink.isEndOfStream)
        try pipeline.setState(.null)
    }

    @Test("float samples round-trip too")
    func floatRoundTrip() throws {
        let floatFormat = AudioFormat(format: .f32, rate: 48_000, channels: 1)
        let pipeline = try Pipeline()
        let source = try AppSource.make()
        try source.configure(audio: floatFormat, isLive: false, doTimestamp: false)
        let sink = try AppSink.make()
        try sink.configure(caps: floatFormat.caps, maxBuffers: 0, drop: false, sync: false)
        try pipeline.add(source, sink)
        try source.link(to: sink)
        try pipeline.setState(.playing)
        let samples = (0..<480).map { Float($0) / 480 - 0.5 }
        try source.push(samples, pts: .zero)
        let buffer = try #require(sink.pull(timeout: .seconds(5))?.buffer)
        #expect(buffer.floatSamples() == samples)
        try pipeline.setState(.null)
    }

    @Test("pushes that do not fit the declared format are refused with a reason")
    func wrongFormat() throws {
        let (_, source, _) = try loopback()
        #expect(throws: GStreamerError.flow(.wrongFormat("961 samples is not a whole number of 2-channel frames"))) {
            try source.push([Int16](repeating: 0, count: 961))
        }
        do {
            try source.push([Float](repeating: 0, count: 960))
            Issue.record("float into S16 must fail")
        } catch {
            guard case .flow(.wrongFormat(let why)) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("S16LE"))
        }
    }

    @Test("a full queue drops the newest push and says so, and stays bounded")
    func dropNewest() throws {
        // Not started: nothing drains the queue.
        let source = try AppSource.make()
        try source.configure(audio: format, isLive: true, doTimestamp: false, limits: .init(buffers: 5), whenFull: .dropNewest)
        var outcomes: [AppSource.PushOutcome] = []
        for index in 0..<8 { outcomes.append(try source.push([Int16](repeating: 1, count: 960), pts: .milliseconds(index * 10))) }
        #expect(outcomes.prefix(5).allSatisfy { $0 == .queued })
        #expect(outcomes.suffix(3).allSatisfy { $0 == .dropped })
        #expect(source.queuedBuffers == 5)
    }

    @Test("a full queue can drop the oldest instead, keeping the newest data")
    func dropOldest() throws {
        let source = try AppSource.make()
        try source.configure(audio: format, isLive: true, doTimestamp: false, limits: .init(buffers: 5), whenFull: .dropOldest)
        let enough = Counter()
        let token = source.onEnoughData { enough.increment() }
        var outcomes: [AppSource.PushOutcome] = []
        for index in 0..<8 { outcomes.append(try source.push([Int16](repeating: 1, count: 960), pts: .milliseconds(index * 10))) }
        #expect(outcomes.prefix(5).allSatisfy { $0 == .queued })
        #expect(outcomes.suffix(3).allSatisfy { $0 == .queuedDroppingOldest })
        #expect(source.queuedBuffers == 5)
        #expect(enough.count >= 1)
        token.disconnect()
    }

    @Test("need-data fires when a running appsrc wants data")
    func needData() throws {
        let (pipeline, source, sink) = try loopback()
        let wanted = DispatchSemaphore(value: 0)
        let token = source.onNeedData { wanted.signal() }
        try pipeline.setState(.playing)
        try source.push([Int16](repeating: 3, count: 960), pts: .zero)
        #expect(sink.pull(timeout: .seconds(5)) != nil)
        // Once its queue is drained the streaming thread asks for more.
        #expect(wanted.wait(timeout: .now() + 5) == .success)
        try pipeline.setState(.null)
        token.disconnect()
        #expect(!token.isConnected)
    }

    @Test("appsink delivers every sample to a callback on the streaming thread")
    func callbackDelivery() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=20 samplesperbuffer=480 ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! appsink name=out sync=false")
        let sink = try pipeline.element(named: "out", as: AppSink.self)
        let received = Mutex<[ClockTime?]>([])
        let token = try sink.onNewSample { sample in received.withLock { $0.append(sample.buffer?.pts) } }
        try Support.runToEnd(pipeline)
        let stamps = received.withLock { $0 }
        #expect(stamps.count == 20)
        #expect(stamps == (0..<20).map { ClockTime.milliseconds($0 * 10) })
        token.disconnect()
    }
}
