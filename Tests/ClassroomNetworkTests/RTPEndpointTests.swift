import ClassroomEngine
import ClassroomNetwork
import Testing

@Suite("RTPEndpoint: packet time and FEC from the URI to the SDP")
struct RTPEndpointTests {
    private func reason(_ uri: String) -> String? {
        do { _ = try RTPEndpoint(uri: uri); return nil } catch { return "\(error)" }
    }

    @Test("?ptime= sets the packet time and the SDP's ptime and maxptime; Opus has FEC unless ?fec=off, G.711 never")
    func parses() throws {
        let ten = try RTPEndpoint(uri: "rtp://127.0.0.1:5004?ptime=10")
        #expect(ten.packetTime == 10 && ten.forwardErrorCorrection)
        #expect(ten.sessionDescription().contains("a=fmtp:111 sprop-stereo=0;stereo=0;useinbandfec=1\r\na=ptime:10\r\na=maxptime:10\r\n"))
        let plain = try RTPEndpoint(uri: "rtp://127.0.0.1:5004?fec=off&ptime=60")
        #expect(!plain.forwardErrorCorrection && plain.packetTime == 60)
        #expect(plain.sessionDescription().contains("a=fmtp:111 sprop-stereo=0;stereo=0\r\na=ptime:60\r\n"))
        let law = try RTPEndpoint(uri: "rtp://127.0.0.1:5004?codec=pcma&ptime=40")
        #expect(!law.forwardErrorCorrection && law.packetTime == 40 && law.sessionDescription().contains("a=ptime:40\r\na=maxptime:40"))
        #expect(try RTPEndpoint(uri: "rtp://127.0.0.1:5004").packetTime == 20)
        #expect(try RTPEndpoint(uri: "rtp://127.0.0.1:5004?ptime=10").sent(from: "127.0.0.1", port: 6000).packetTime == 10)
    }

    @Test("a packet time opusenc cannot send, a FEC value that is not on or off, and FEC on G.711 are refused, saying what is allowed")
    func refuses() {
        #expect(reason("rtp://127.0.0.1:5004?ptime=15")?.contains("ptime is one of 10, 20, 40, 60") == true)
        #expect(reason("rtp://127.0.0.1:5004?ptime=ten")?.contains("ptime is one of 10, 20, 40, 60") == true)
        #expect(reason("rtp://127.0.0.1:5004?fec=yes")?.contains("fec is on or off") == true)
        #expect(reason("rtp://127.0.0.1:5004?codec=pcmu&fec=on")?.contains("G.711 has none") == true)
        #expect(reason("rtp://127.0.0.1:5004?bitrate=9")?.contains("(pt, codec, ptime, fec)") == true)
    }
}
