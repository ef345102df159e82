@testable import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging
import Synchronization
import Testing
@testable import ClassroomNetwork

/// A peer's receiver hands its audio to the engine as early and as punctually as it can: the
/// engine's mixer waits only its latency for a push (#21).
@Suite("A peer's receiver feeds the engine in time")
struct PeerFeedTimingTests {
    @Test("an RTP peer pushes at the engine's real-time priority (normal priority when the engine has none), and its latency is its jitter buffer (and the FEC packet only after a loss), with no sink deadline added")
    func receiverKeepsTime() async throws {
        try GStreamer.initialize()
        let logger = Logger(label: "peer-feed-timing-test")
        for priority in [Int32(4), nil] {
            var configuration = AudioEngine.Configuration()
            configuration.realtimePriority = priority
            let engine = try AudioEngine(output: .discard, configuration: configuration, logger: logger)
            try engine.start()
            defer { engine.stop() }
            let input = try engine.addRTCInput(id: "rtc-peer", format: PeerFeed.format)
            let port = try LocalPort.free(.udp, on: "127.0.0.1")
            let feed = try PeerFeed(source: .rtp(address: "127.0.0.1", port: port, payloadType: nil), input: input,
                                    jitterBuffer: .fixed(.milliseconds(30)), logger: logger)
            let pushing = Mutex<ThreadScheduling?>(nil)
            let probe = try feed.pipeline.element(named: NetworkGraph.Peer.sink)?.staticPad("sink").addProbe(.buffer) { _ in
                pushing.withLock { $0 = ThreadScheduling.current() }
                return .ok
            }
            try feed.start { _ in }
            defer { feed.stop() }
            let sender = try Pipeline.parse("audiotestsrc is-live=true wave=sine freq=500 samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=1 ! "
                                            + "opusenc frame-size=10 inband-fec=true ! rtpopuspay pt=111 ! udpsink host=127.0.0.1 port=\(port)")
            try sender.setState(.playing)
            defer { _ = try? sender.setState(.null) }
            #expect(await Poll.until(within: .seconds(5)) { feed.secondsPushed > 0.3 }, "the peer pushed \(feed.secondsPushed) s")
            withExtendedLifetime(probe) {}
            let seen = try #require(pushing.withLock { $0 }, "no buffer reached the peer's appsink")
            let latency = try feed.pipeline.latency()
            print("FIGURE realtimePriority \(priority.map(String.init) ?? "nil"): the peer's push thread at \(seen); its latency \(latency.minimum.milliseconds) ms with a 30 ms jitter buffer and 10 ms packets, nothing lost")
            if let priority {
                #expect(seen.isRoundRobin(at: priority), "\(seen)")
            } else {
                #expect(seen.isNormal, "\(seen)")
            }
            // 30 ms held for late packets, and the 10 ms packet FEC decoding holds only once a packet
            // was lost (none on loopback); basesink's default 20 ms processing deadline would add 20.
            let held = try #require(feed.fecHeld, "the Opus feed decodes no FEC")
            #expect(held == .zero, "a packet was lost on loopback: the decoder holds \(held.milliseconds) ms")
            #expect(latency.isLive && latency.minimum == .milliseconds(30) + held)
        }
    }
}
