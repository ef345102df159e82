import Foundation
import GStreamer
import Synchronization
import Testing
import TLS

/// The tag check that keeps an SSRC away from srtpdec until it authenticates, against packets
/// GStreamer's own srtpenc (libsrtp) protects.
@Suite("SRTPAuthenticator: libsrtp's tags check, anything else does not")
struct SRTPAuthenticatorTests {
    private let material: [UInt8] = (0..<30).map { UInt8(($0 * 37 + 11) & 0xff) }

    /// The Opus packets of 200 ms (ten, and the encoder's last) protected by srtpenc with `material` and `auth`.
    private func protectedPackets(auth: String) throws -> [[UInt8]] {
        try GStreamer.initialize()
        let key = material.map { String(format: "%02x", $0) }.joined()
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=10 samplesperbuffer=960 ! audio/x-raw,rate=48000,channels=1 ! opusenc ! rtpopuspay ssrc=4660 "
                                          + "! srtpenc key=\(key) rtp-cipher=aes-128-icm rtp-auth=\(auth) ! fakesink name=out sync=false")
        let sink = try #require(pipeline.element(named: "out"))
        let packets = Mutex<[[UInt8]]>([])
        let watch = try sink.staticPad("sink").addProbe(.buffer) { info in
            if let buffer = info.buffer { packets.withLock { $0.append(buffer.bytes()) } }
            return .ok
        }
        defer { watch?.remove(); _ = try? pipeline.setState(.null) }
        let end = try pipeline.bus.waitForMessage(timeout: .seconds(10), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        if case .error(let error, _)? = end?.view { Issue.record("srtpenc failed: \(error.message)") }
        return packets.withLock { $0 }
    }

    @Test("packets srtpenc protected authenticate; a changed byte, another key or a junk packet do not", arguments: [("hmac-sha1-80", 10), ("hmac-sha1-32", 4)])
    func tags(auth: String, tagLength: Int) throws {
        let packets = try protectedPackets(auth: auth)
        #expect(packets.count >= 10)
        let right = try #require(SRTPAuthenticator(masterKey: Array(material.prefix(16)), masterSalt: Array(material.suffix(14)), tagLength: tagLength))
        let wrongMaterial = material.map { $0 ^ 0x5a }
        let wrong = try #require(SRTPAuthenticator(masterKey: Array(wrongMaterial.prefix(16)), masterSalt: Array(wrongMaterial.suffix(14)), tagLength: tagLength))
        #expect(packets.allSatisfy { right.authenticates(rtp: $0) })
        #expect(!packets.contains { wrong.authenticates(rtp: $0) })
        for packet in packets {
            var changed = packet
            changed[14] ^= 1
            #expect(!right.authenticates(rtp: changed))
            #expect(!right.authenticates(rtp: packet, rollover: 1))
        }
        let junk = [0x80, 111, 0, 1, 0, 0, 0, 1, 0xde, 0xad, 0xbe, 0xef] + [UInt8](repeating: 7, count: 60)
        #expect(!right.authenticates(rtp: junk) && !right.authenticates(rtcp: junk))
    }
}
