import Foundation
import Synchronization
import Testing
@testable import GStreamer

@Suite("Signals that ask for an answer, and buffer properties")
struct SignalAnswerTests {
    init() throws { try Support.start() }

    /// 20 buffers of RTP through srtpenc (its key set as bytes) and srtpdec (its key given only in
    /// answer to request-key, with `answerKey`: capssetter drops the key srtpenc puts in its caps);
    /// the buffers that came out of srtpdec.
    private func roundTrip(answerKey: [UInt8]) throws -> (passed: Int, asked: Int) {
        let key = [UInt8](0..<30)
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=20 ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay ! "
                                          + "srtpenc name=enc rtp-cipher=aes-128-icm rtp-auth=hmac-sha1-80 rtcp-cipher=aes-128-icm rtcp-auth=hmac-sha1-80 ! "
                                          + "capssetter replace=true caps=application/x-srtp,media=audio,clock-rate=8000,encoding-name=PCMU,payload=0 ! srtpdec name=dec ! fakesink name=out")
        let encoder = try #require(pipeline.element(named: "enc"))
        try encoder.set("key", bytes: key)
        let hex = answerKey.map { String(format: "%02x", $0) }.joined()
        let answer = try Caps("application/x-srtp,srtp-key=(buffer)\(hex),srtp-cipher=(string)aes-128-icm,srtp-auth=(string)hmac-sha1-80,"
                              + "srtcp-cipher=(string)aes-128-icm,srtcp-auth=(string)hmac-sha1-80")
        let asked = Counter(), passed = Counter()
        let decoder = try #require(pipeline.element(named: "dec"))
        let handler = decoder.onCapsRequest("request-key") { _ in asked.increment(); return answer }
        let out = try #require(pipeline.element(named: "out"))
        let probe = try out.staticPad("sink").addProbe(.buffer) { _ in passed.increment(); return .ok }
        _ = try Support.runToEnd(pipeline)
        try pipeline.setState(.null)
        withExtendedLifetime((handler, probe)) {}
        return (passed.count, asked.count)
    }

    @Test("srtpdec asks for the SSRC's key and decrypts with the caps the answer gives; a wrong key passes nothing")
    func requestKey() throws {
        let right = try roundTrip(answerKey: [UInt8](0..<30))
        let wrong = try roundTrip(answerKey: [UInt8](repeating: 7, count: 30))
        #expect(right.asked >= 1 && right.passed == 20, "\(right)")
        #expect(wrong.asked >= 1 && wrong.passed == 0, "\(wrong)")
    }

    @Test("a buffer property takes bytes, and a property of another type says so")
    func bufferProperty() throws {
        let encoder = try ElementFactory.make("srtpenc")
        try encoder.set("key", bytes: [UInt8](repeating: 1, count: 30))
        #expect(throws: GStreamerError.self) { try encoder.set("replay-window-size", bytes: [1, 2]) }
    }
}
