import Testing
@testable import ClassroomNetwork

@Suite("RTP latch: a peer's port plays one stream")
struct RTPLatchTests {
    /// An RTP packet's bytes: a 12-byte header and 20 bytes of payload.
    private func packet(pt: Int, ssrc: UInt32, sequence: UInt16 = 1) -> [UInt8] {
        [0x80, UInt8(pt), UInt8(sequence >> 8), UInt8(sequence & 0xff), 0, 0, 0, 160,
         UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xff), UInt8(ssrc >> 8 & 0xff), UInt8(ssrc & 0xff)] + [UInt8](repeating: 0, count: 20)
    }

    private let second: UInt64 = 1_000_000_000

    private func isDrop(_ verdict: RTPLatch.Verdict) -> Bool { if case .drop = verdict { return true }; return false }
    private func message(_ verdict: RTPLatch.Verdict) -> String? {
        switch verdict {
        case .drop(let message): return message
        case .latched(let message), .tookOver(let message): return message
        case .play: return nil
        }
    }

    @Test("a stray packet of a static payload type before the teacher is dropped, and the teacher then latches and plays")
    func strayBeforeTeacher() {
        let latch = RTPLatch(accepting: .anyDynamic, feed: "rtp://127.0.0.1:5004")
        let stray = latch.judge(packet(pt: 0, ssrc: 0x1234), from: "127.0.0.1:40000", now: 1 * second)
        #expect(isDrop(stray))
        #expect(message(stray)?.contains("payload type 0 (PCMU)") == true)
        #expect(message(latch.judge(packet(pt: 96, ssrc: 0xabc), from: "127.0.0.1:40001", now: 2 * second))?.contains("playing SSRC 0xabc") == true)
        #expect(latch.judge(packet(pt: 96, ssrc: 0xabc, sequence: 2), from: "127.0.0.1:40001", now: 2 * second) == .play)
        #expect(latch.dropped == 1)
    }

    @Test("while the teacher plays, another payload type, another SSRC, the same SSRC from another address and non-RTP are dropped, each said once")
    func strangersDropped() {
        let latch = RTPLatch(accepting: .anyDynamic, feed: "rtp://127.0.0.1:5004")
        let teacher = "127.0.0.1:40001"
        _ = latch.judge(packet(pt: 96, ssrc: 0xabc), from: teacher, now: 0)
        let verdicts = [
            latch.judge(packet(pt: 0, ssrc: 0x1234), from: "127.0.0.1:40000", now: second / 10),
            latch.judge(packet(pt: 0, ssrc: 0x1234), from: "127.0.0.1:40000", now: second / 10),
            latch.judge(packet(pt: 97, ssrc: 0xabc), from: teacher, now: second / 10),
            latch.judge(packet(pt: 96, ssrc: 0xdef), from: "127.0.0.1:40002", now: second / 10),
            latch.judge(packet(pt: 96, ssrc: 0xdef), from: "127.0.0.1:40002", now: second / 10),
            latch.judge(packet(pt: 96, ssrc: 0xabc), from: "127.0.0.1:40003", now: second / 10),
            latch.judge([0x12, 0x34], from: "127.0.0.1:40004", now: second / 10),
        ]
        #expect(verdicts.allSatisfy(isDrop))
        let said = verdicts.compactMap(message)
        #expect(said.count == 3, "\(said)")       // payload types, other senders, not RTP: one message each
        #expect(said.contains { $0.contains("a second sender (SSRC 0xdef from 127.0.0.1:40002)") })
        #expect(latch.dropped == 7)
        #expect(latch.judge(packet(pt: 96, ssrc: 0xabc, sequence: 3), from: teacher, now: second / 5) == .play)
    }

    @Test("another sender takes over only after the playing one has been silent for 2 s (a restarted sender)")
    func takeover() {
        let latch = RTPLatch(accepting: .anyDynamic, feed: "rtp://127.0.0.1:5004")
        _ = latch.judge(packet(pt: 96, ssrc: 0xabc), from: "127.0.0.1:40001", now: 10 * second)
        #expect(isDrop(latch.judge(packet(pt: 96, ssrc: 0xdef), from: "127.0.0.1:40002", now: 11 * second)))
        #expect(isDrop(latch.judge(packet(pt: 96, ssrc: 0xdef), from: "127.0.0.1:40002", now: 12 * second - 1)))
        let takeover = latch.judge(packet(pt: 96, ssrc: 0xdef), from: "127.0.0.1:40002", now: 12 * second)
        #expect(message(takeover)?.contains("SSRC 0xdef from 127.0.0.1:40002 plays now (payload type 96), after 2.0 s without packets from SSRC 0xabc") == true, "\(takeover)")
        guard case .tookOver = takeover else { Issue.record("a takeover is not told apart from a first latch: \(takeover)"); return }
        #expect(isDrop(latch.judge(packet(pt: 96, ssrc: 0xabc), from: "127.0.0.1:40001", now: 12 * second + 1)))
    }

    @Test("a pinned payload type plays only that type, from the first packet on")
    func pinned() {
        let latch = RTPLatch(accepting: .only(111, pinnedBy: "?pt=111"), feed: "rtp://127.0.0.1:5004?pt=111")
        let wrong = latch.judge(packet(pt: 96, ssrc: 0xabc), from: nil, now: 0)
        #expect(message(wrong)?.contains("which plays payload type 111 (?pt=111)") == true)
        #expect(message(latch.judge(packet(pt: 111, ssrc: 0xdef), from: nil, now: 0))?.hasPrefix("playing SSRC 0xdef") == true)
    }
}
