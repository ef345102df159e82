import Foundation
import Synchronization
import Testing
@testable import GStreamer

/// RFC 6464 audio levels: measured on the raw audio, carried through opusenc as a meta, written by
/// the payloader in each packet's one-byte header extension.
@Suite("Audio levels in RTP packets (RFC 6464)")
struct AudioLevelMarkerTests {
    init() throws { try Support.start() }

    @Test("the level is the RMS in -dBov: 0 for a full-scale square wave, 127 for silence, about 23 for a sine at a tenth of full scale")
    func levels() {
        let square = (0..<480).map { $0 % 2 == 0 ? Int16.max : Int16.min }
        let sine = (0..<480).map { Int16(3276.7 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        #expect(square.withUnsafeBufferPointer(Pad.audioLevel) == 0)
        #expect([Int16](repeating: 0, count: 480).withUnsafeBufferPointer(Pad.audioLevel) == 127)
        #expect([Int16]().withUnsafeBufferPointer(Pad.audioLevel) == 127)
        #expect(sine.withUnsafeBufferPointer(Pad.audioLevel) == 23)
        #expect([Int16](repeating: 1, count: 480).withUnsafeBufferPointer(Pad.audioLevel) == 90)
    }

    /// The (voice, level) of each packet's extension with `id`, nil for a packet without one.
    private func packets(volume: Double) throws -> [(voice: Bool, level: Int)?] {
        let pipeline = try Pipeline.parse("""
            audiotestsrc num-buffers=30 samplesperbuffer=480 freq=1000 volume=\(volume) ! audio/x-raw,format=S16LE,rate=48000,channels=1 \
            ! opusenc name=enc frame-size=10 ! rtpopuspay name=pay ! appsink name=out sync=false
            """)
        try #require(pipeline.element(named: "pay")).addRTPHeaderExtension(uri: "urn:ietf:params:rtp-hdrext:ssrc-audio-level", id: 1)
        let marker = try #require(pipeline.element(named: "enc")).staticPad("sink").addAudioLevelMarker()
        let collected = Mutex<[(voice: Bool, level: Int)?]>([])
        let token = try pipeline.element(named: "out", as: AppSink.self).onNewSample { sample in
            let bytes = sample.buffer?.bytes() ?? []
            // RTP with the X bit and no CSRC; RFC 8285's one-byte header (0xBEDE), an element of id 1 and length 1.
            let found: (voice: Bool, level: Int)? = bytes.count > 17 && bytes[0] & 0x1F == 0x10 && bytes[12] == 0xBE && bytes[13] == 0xDE && bytes[16] == 0x10
                ? (bytes[17] & 0x80 != 0, Int(bytes[17] & 0x7F)) : nil
            collected.withLock { $0.append(found) }
        }
        try Support.runToEnd(pipeline)
        _ = (marker, token)
        return collected.withLock { $0 }
    }

    @Test("each packet of a sine at a tenth of full scale says level 23 with the voice flag; of silence, 127 without")
    func packetsCarryTheLevel() throws {
        let tone = try packets(volume: 0.1), silence = try packets(volume: 0)
        print("FIGURE audio levels: tone \(tone.prefix(4).map { $0.map { "\($0.level)\($0.voice ? "v" : "")" } ?? "-" }) of \(tone.count); silence \(silence.prefix(4).map { $0.map { "\($0.level)\($0.voice ? "v" : "")" } ?? "-" }) of \(silence.count)")
        #expect(tone.count >= 29 && silence.count >= 29)
        #expect(tone.allSatisfy { $0 != nil && $0!.voice && abs($0!.level - 23) <= 1 }, "\(tone)")
        #expect(silence.allSatisfy { $0 != nil && !$0!.voice && $0!.level == 127 }, "\(silence)")
    }
}
