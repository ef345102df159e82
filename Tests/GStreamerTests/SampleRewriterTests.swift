import Foundation
import Synchronization
import Testing
@testable import GStreamer

@Suite("Rewriting samples in a pad probe")
struct SampleRewriterTests {
    init() throws { try Support.start() }

    /// A sine split by a tee: branch "a" passes a rewriter, branch "b" does not. Both branches start
    /// from the same buffers, so a rewrite that did not make its buffer writable would show on "b" too.
    private func run(wanted: Bool) throws -> (rewritten: [Int16], untouched: [Int16], seen: Int) {
        let pipeline = try Pipeline.parse("""
            audiotestsrc num-buffers=20 samplesperbuffer=480 freq=440 volume=0.5 ! audio/x-raw,format=S16LE,rate=48000,channels=1 \
            ! tee name=t t. ! queue ! identity name=gain ! appsink name=a sync=false t. ! queue ! appsink name=b sync=false
            """)
        let collected = Mutex<[String: [Int16]]>([:])
        var tokens: [SignalHandler] = []
        for name in ["a", "b"] {
            let sink = try pipeline.element(named: name, as: AppSink.self)
            tokens.append(try sink.onNewSample { sample in
                let samples = sample.buffer?.int16Samples() ?? []
                collected.withLock { $0[name, default: []] += samples }
            })
        }
        let seen = Counter()
        let gain = try #require(pipeline.element(named: "gain"))
        let probe = try gain.staticPad("src").addSampleRewriter(when: { wanted }) { samples, pts in
            if pts != nil { seen.increment() }
            for index in samples.indices { samples[index] /= 2 }
        }
        try Support.runToEnd(pipeline)
        _ = (tokens, probe)
        return collected.withLock { ($0["a"] ?? [], $0["b"] ?? [], seen.count) }
    }

    @Test("a rewriter halves its branch's samples in place and leaves the other branch of a tee untouched")
    func rewritesOwnBranchOnly() throws {
        let (rewritten, untouched, seen) = try run(wanted: true)
        #expect(untouched.count == 20 * 480)
        #expect(rewritten.count == untouched.count)
        #expect(seen == 20)
        #expect(untouched.contains { abs(Int($0)) > 10_000 })
        #expect(zip(rewritten, untouched).allSatisfy { $0 == $1 / 2 })
    }

    @Test("a rewriter that does not want the buffers passes them as they are")
    func unwantedPassesUntouched() throws {
        let (rewritten, untouched, seen) = try run(wanted: false)
        #expect(seen == 0)
        #expect(untouched.count == 20 * 480)
        #expect(rewritten == untouched)
    }

    @Test("samples read in place match the copied ones")
    func readsInPlace() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=5 samplesperbuffer=480 ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! fakesink name=out")
        let out = try #require(pipeline.element(named: "out"))
        let matched = Counter(), buffers = Counter()
        let probe = try out.staticPad("sink").addProbe(.buffer) { info in
            if let buffer = info.buffer {
                buffers.increment()
                if buffer.withInt16Samples({ Array($0) }) == buffer.int16Samples() { matched.increment() }
            }
            return .ok
        }
        try Support.runToEnd(pipeline)
        _ = probe
        #expect(buffers.count == 5)
        #expect(matched.count == 5)
    }
}
