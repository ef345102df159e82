import CGStreamer
import Synchronization
import Testing
@testable import GStreamer

@Suite("webrtcbin's offer and answer through promises")
struct WebRTCBinTests {
    init() throws { try Support.start() }

    /// An Opus sender's webrtcbin "a" and an empty one "b" in one pipeline, not yet playing.
    private static func senderAndReceiver() throws -> (Pipeline, WebRTCBin, WebRTCBin) {
        let pipeline = try Pipeline.parse("audiotestsrc is-live=true ! opusenc ! rtpopuspay pt=111 ! "
                                          + "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000 ! "
                                          + "webrtcbin name=a bundle-policy=max-bundle  webrtcbin name=b bundle-policy=max-bundle")
        return (pipeline, try WebRTCBin(try #require(pipeline.element(named: "a"))), try WebRTCBin(try #require(pipeline.element(named: "b"))))
    }

    @Test("an Opus sender offers, a receiver answers, both settle in 'stable', and the changes are notified")
    func offerAndAnswer() throws {
        let (pipeline, a, b) = try Self.senderAndReceiver()
        defer { _ = try? pipeline.setState(.null) }
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

    @Test("its own answer to a stream that comes back from inactive (as Janus reuses a departed publisher's m-line): 1.22 refuses it with webrtcbin's reason, 1.26 takes it")
    func directionChange() throws {
        let (pipeline, a, b) = try Self.senderAndReceiver()
        defer { _ = try? pipeline.setState(.null) }
        try pipeline.setState(.playing)
        /// One round: a's offer (with `direction` written in, as Janus writes its own), b's answer
        /// set on both sides; returns b's answer after it failed there, nil when it was taken.
        func round(direction: String?) throws -> String? {
            var offer = try a.createOffer()
            if let direction { offer = offer.replacingOccurrences(of: "a=sendrecv", with: direction).replacingOccurrences(of: "a=inactive", with: direction) }
            try a.setLocalDescription(offer, type: .offer)
            try b.setRemoteDescription(offer, type: .offer)
            let answer = try b.createAnswer()
            do {
                try b.setLocalDescription(answer, type: .answer)
            } catch {
                #expect("\(error)".contains("set-local-description failed: transceiver direction changes are not implemented"), "\(error)")
                return answer
            }
            try a.setRemoteDescription(answer, type: .answer)
            return nil
        }
        #expect(try round(direction: nil) == nil)
        // The offerer marks the stream inactive, as Janus does when a publisher leaves, and then
        // offers it again for a publisher who comes: the answer to that changes the direction.
        #expect(try round(direction: "a=inactive") == nil)
        // webrtcbin follows the specification's direction rules from 1.26 on (it creates and
        // associates transceivers while a description is set); 1.22 has no such change.
        let failedAnswer = try round(direction: "a=sendrecv")
        if GStreamer.version < GStreamer.Version(major: 1, minor: 26, micro: 0) {
            #expect(failedAnswer != nil, "GStreamer \(GStreamer.version) took the answer that changes the direction")
        } else {
            #expect(failedAnswer == nil, "GStreamer \(GStreamer.version) refused the answer that changes the direction")
        }
    }

    @Test("a reply with any error field is a failure: with a GError its message, with none a reason that says where to look")
    func errorField() throws {
        let ok = try #require(gst_structure_new_empty("application/x-gst-promise"))
        defer { gst_structure_free(ok) }
        #expect(WebRTCBin.failure(in: ok) == nil)

        let empty = try #require(gst_structure_new_empty("application/x-gst-promise"))
        defer { gst_structure_free(empty) }
        var value = GValue()
        g_value_init(&value, g_error_get_type())
        gst_structure_set_value(empty, "error", &value)
        g_value_unset(&value)
        #expect(WebRTCBin.failure(in: empty) == "webrtcbin gave no reason (GST_DEBUG=webrtcbin:4 logs it)")

        let full = try #require(gst_structure_new_empty("application/x-gst-promise"))
        defer { gst_structure_free(full) }
        let error = g_error_new_literal(g_quark_from_string("test"), 1, "Cannot intersect dtls setup attributes for media 0")
        g_value_init(&value, g_error_get_type())
        g_value_take_boxed(&value, error)
        gst_structure_set_value(full, "error", &value)
        g_value_unset(&value)
        #expect(WebRTCBin.failure(in: full) == "Cannot intersect dtls setup attributes for media 0")
    }
}
