import Synchronization
import Testing
@testable import GStreamer

@Suite("webrtcbin's offer and answer through promises")
struct WebRTCBinTests {
    init() throws { try Support.start() }

    @Test("an Opus sender offers, a receiver answers, both settle in 'stable', and the changes are notified")
    func offerAndAnswer() throws {
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true ! opusenc ! rtpopuspay pt=111 ! "
                                          + "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000 ! "
                                          + "webrtcbin name=a bundle-policy=max-bundle  webrtcbin name=b bundle-policy=max-bundle")
        defer { _ = try? pipeline.setState(.null) }
        let a = try WebRTCBin(try #require(pipeline.element(named: "a")))
        let b = try WebRTCBin(try #require(pipeline.element(named: "b")))
        let seen = Mutex<[String]>([])
        let handlers = a.onChange(of: ["signaling-state"]) { property, nick in seen.withLock { $0.append("\(property)=\(nick)") } }
        try pipeline.setState(.playing)

        let offer = try a.createOffer()
        #expect(offer.contains("m=audio") && offer.contains("OPUS/48000") && offer.contains("a=sendrecv"), "\(offer)")
        #expect(offer.components(separatedBy: "m=audio").count == 2, "one m-line for the one linked sender")
        try a.setLocalDescription(offer, type: .offer)
        try b.setRemoteDescription(offer, type: .offer)
        let answer = try b.createAnswer()
        #expect(answer.contains("m=audio") && answer.contains("a=recvonly"), "\(answer)")
        try b.setLocalDescription(answer, type: .answer)
        try a.setRemoteDescription(answer, type: .answer)

        #expect(try a.element.enumNick("signaling-state") == "stable")
        #expect(try b.element.enumNick("signaling-state") == "stable")
        #expect(a.localDescription?.contains("m=audio") == true)
        #expect(seen.withLock { $0 } == ["signaling-state=have-local-offer", "signaling-state=stable"])
        withExtendedLifetime(handlers) {}
    }

    @Test("a description that is not SDP, or an answer with no offer before it, is refused with why")
    func refusals() throws {
        let pipeline = try Pipeline.parse("webrtcbin name=a")
        defer { _ = try? pipeline.setState(.null) }
        let a = try WebRTCBin(try #require(pipeline.element(named: "a")))
        try pipeline.setState(.playing)
        #expect(throws: GStreamerError.self) { try a.setRemoteDescription("not sdp at all", type: .answer) }
        let stray = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:111 OPUS/48000/2\r\n"
        do {
            try a.setRemoteDescription(stray, type: .answer)
            Issue.record("an answer without an offer was taken")
        } catch {
            #expect("\(error)".contains("set-remote-description failed"), "\(error)")
        }
        #expect(throws: GStreamerError.self) { _ = try WebRTCBin(try ElementFactory.make("fakesink")) }
    }
}
