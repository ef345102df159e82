import Foundation
import Testing
@testable import ClassroomNetwork

/// The sender's wall clock in an SRTP packet's NTP-64 header extension, read from bytes a stranger chose.
@Suite("RTP freshness: the NTP-64 stamp")
struct RTPFreshnessTests {
    /// An RTP header (SSRC 0xabc) with one-byte extension `elements` (padded to 32 bits) and a 10-byte payload.
    private func packet(elements: [UInt8], claimedWords: Int? = nil, csrcs: Int = 0) -> [UInt8] {
        let padded = elements + [UInt8](repeating: 0, count: (4 - elements.count % 4) % 4)
        let words = claimedWords ?? padded.count / 4
        return [0x90 | UInt8(csrcs), 111, 0, 1, 0, 0, 0, 0, 0, 0, 0x0a, 0xbc] + [UInt8](repeating: 0, count: 4 * csrcs)
            + [0xbe, 0xde, UInt8(words >> 8), UInt8(words & 0xff)] + padded + [UInt8](repeating: 7, count: 10)
    }

    private func ntp(_ unix: TimeInterval) -> [UInt8] {
        let value = UInt64((unix + 2_208_988_800) * 4_294_967_296)
        return (0..<8).map { UInt8((value >> (56 - 8 * UInt64($0))) & 0xff) }
    }

    @Test("a stamp is read after other elements, padding and CSRCs; a stamp within a minute is fresh, two hours old is refused with its age")
    func stamp() throws {
        let now = Date().timeIntervalSince1970
        let fresh = packet(elements: [0x10, 0x55, 0x00] + [0x17] + ntp(now - 2), csrcs: 2)
        #expect(abs(try #require(RTPFreshness.senderTime(in: fresh)) - (now - 2)) < 0.001)
        #expect(RTPFreshness.refusal(of: fresh, on: "srtp://x", now: now) == nil)
        let old = packet(elements: [0x17] + ntp(now - 7_200))
        let refusal = try #require(RTPFreshness.refusal(of: old, on: "srtp://x", now: now))
        #expect(refusal.contains("SSRC 0xabc") && refusal.contains("stamped 7200 s ago"), "\(refusal)")
        let ahead = packet(elements: [0x17] + ntp(now + 600))
        #expect(RTPFreshness.refusal(of: ahead, on: "srtp://x", now: now)?.contains("600 s ahead") == true)
    }

    @Test("no stamp is read from a packet without one, an empty one, or an extension whose lengths overrun the packet", arguments: [
        [0x80, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0x0a, 0xbc, 1, 2, 3],             // no extension bit
        [0x90, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0x0a, 0xbc, 0xbe],                // the extension header cut short
        [0x9f, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0x0a, 0xbc, 0xbe, 0xde, 0, 1],    // 15 CSRCs the packet does not hold
    ] as [[UInt8]])
    func noStamp(_ bytes: [UInt8]) {
        #expect(RTPFreshness.senderTime(in: bytes) == nil)
    }

    @Test("an empty stamp, a reserved element, an element longer than the extension and a length past the packet are no stamp")
    func hostileExtensions() {
        #expect(RTPFreshness.senderTime(in: packet(elements: [0x17] + [UInt8](repeating: 0, count: 8))) == nil)
        #expect(RTPFreshness.senderTime(in: packet(elements: [0xf7] + ntp(0))) == nil)
        #expect(RTPFreshness.senderTime(in: packet(elements: [0x1f, 1, 2, 3])) == nil)
        #expect(RTPFreshness.senderTime(in: packet(elements: [0x17] + ntp(0), claimedWords: 0xffff)) == nil)
    }
}
