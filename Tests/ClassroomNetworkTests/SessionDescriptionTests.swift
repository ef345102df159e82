import ClassroomEngine
import Foundation
import Testing
@testable import ClassroomNetwork

/// SDP files come from whoever can write one, or send one through the control socket: every line
/// is checked before it is indexed, and a secret anywhere in the file makes the file a secret.
@Suite("SessionDescription: a hostile SDP is refused, never a crash")
struct SessionDescriptionTests {
    private func reason(_ text: String) -> String? {
        do {
            _ = try SessionDescription.parse(text, path: "hostile.sdp")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a media line whose port is only a slash, or a connection line whose address is, is refused with a reason", arguments: [
        "v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio / RTP/AVP 96\r\na=rtpmap:96 opus/48000/2\r\n",
        "v=0\r\nc=IN IP4 /\r\nm=audio 5004 RTP/AVP 96\r\na=rtpmap:96 opus/48000/2\r\n",
        "v=0\r\nm=audio 5004 RTP/AVP 96\r\nc=IN IP4 /\r\na=rtpmap:96 opus/48000/2\r\n",
        "v=0\r\nm=audio 5004/ RTP/AVP 0\r\nc=IN IP4 //\r\n",
        "v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio 5004 RTP/AVP 96\r\na=rtpmap:96 /\r\na=rtpmap:\r\n",
    ])
    func slashes(text: String) {
        let refused = reason(text)
        #expect(refused?.contains("cannot be played") == true, "\(refused ?? "accepted")")
    }

    @Test("an SDP whose a=crypto is in its second media section is refused while others can read it")
    func keyInSecondSection() throws {
        let folder = try TestFolder.make("sdp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("two.sdp")
        try ("v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio 5004 RTP/AVP 0\r\n"
             + "m=audio 5006 RTP/SAVP 0\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz\r\n")
            .write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o644)
        #expect(throws: EngineError.self) { _ = try SessionDescription.load(path: file.path) }
        chmod(file.path, 0o600)
        #expect(try SessionDescription.load(path: file.path).port == 5004)
    }

    @Test("a FIFO or an oversized file as the SDP is refused without reading it")
    func notAFile() throws {
        let folder = try TestFolder.make("sdp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo.sdp").path
        #expect(mkfifo(fifo, 0o600) == 0)
        var refusal = ""
        do { _ = try SessionDescription.load(path: fifo) } catch { refusal = error.description }
        #expect(refusal.contains("not a regular file"), "\(refusal)")
        let sparse = folder.appendingPathComponent("sparse.sdp").path
        #expect(FileManager.default.createFile(atPath: sparse, contents: Data("v=0\r\n".utf8)))
        #expect(truncate(sparse, 1 << 33) == 0)
        do { _ = try SessionDescription.load(path: sparse) } catch { refusal = error.description }
        #expect(refusal.contains("8589934592 bytes"), "\(refusal)")
    }
}
