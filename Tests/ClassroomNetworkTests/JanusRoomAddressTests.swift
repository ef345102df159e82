import Foundation
import Testing
@testable import ClassroomNetwork

@Suite("A Janus room's address")
struct JanusRoomAddressTests {
    @Test("an IPv6 literal parses: the host is inside the brackets, the API URL and the description put them back", arguments: [
        ("janus://[::1]:8088/1234", "::1", 8088, "http://[::1]:8088/janus"),
        ("janus://[fd00:201::2]/7?display=k", "fd00:201::2", 8088, "http://[fd00:201::2]:8088/janus"),
        ("janus://10.201.7.1:8089/1234", "10.201.7.1", 8089, "http://10.201.7.1:8089/janus"),
    ])
    func parses(uri: String, host: String, port: Int, api: String) throws {
        let address = try JanusRoomAddress(uri: uri)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.apiURL?.absoluteString == api)
        #expect(address.description.hasPrefix(uri.components(separatedBy: "?")[0].replacingOccurrences(of: "]/", with: "]:8088/")))
    }

    @Test("http://HOST[:PORT]/PATH?room=N joins over WebRTC: the API at that path, the room from the query, the options beside it", arguments: [
        ("http://10.0.0.5:8088/janus?room=2222&display=kiosk-7", "10.0.0.5", 8088, "http://10.0.0.5:8088/janus", 2222, "kiosk-7"),
        ("http://janus.school.example/api/janus?display=k&room=9&prebuffer=2", "janus.school.example", 8088, "http://janus.school.example:8088/api/janus", 9, "k"),
        ("http://[fd00::5]:9000/janus?room=1", "fd00::5", 9000, "http://[fd00::5]:9000/janus", 1, "kiosk"),
    ])
    func webRTC(uri: String, host: String, port: Int, api: String, room: UInt64, display: String) throws {
        let address = try JanusRoomAddress(uri: uri)
        #expect(address.media == .webRTC)
        #expect(address.host == host && address.port == port && address.room == room && address.display == display)
        #expect(address.apiURL?.absoluteString == api)
        #expect(address.description == "\(api)?room=\(room)")
        #expect(try JanusRoomAddress(uri: "janus://h/5").media == .plainRTP)
        #expect(address.trust == nil)
    }

    @Test("https:// verifies the server against the system's CAs, or the CA in ca=FILE; Janus's HTTPS port 8089 unless given")
    func https() throws {
        let system = try JanusRoomAddress(uri: "https://janus.school.example/janus?room=4")
        #expect(system.trust == .init(caFile: nil) && system.port == 8089)
        #expect(system.apiURL?.absoluteString == "https://janus.school.example:8089/janus")
        #expect(system.description == "https://janus.school.example:8089/janus?room=4")
        let own = try JanusRoomAddress(uri: "https://10.0.0.5:9443/janus?room=4&ca=/etc/hostname")
        #expect(own.trust?.caFile == "/etc/hostname" && own.port == 9443 && own.media == .webRTC)
    }

    @Test("a WebRTC room needs its API path and a numbered room=; ca= is HTTPS's and names a readable file", arguments: [
        ("http://h:8088?room=1", "names Janus's API path"),
        ("http://h:8088/janus", "room=ROOM is missing"),
        ("http://h:8088/janus?room=abc", "the room is a number, not 'abc'"),
        ("http://h:8088/janus?room=1&colour=red", "'colour' is not an option of a room (room, mode, display"),
        ("https://h/janus?room=1&ca=/nonexistent/ca.pem", "the CA file /nonexistent/ca.pem cannot be read"),
        ("http://h/janus?room=1&ca=/etc/hostname", "'ca' is not an option of a room (room, mode, display"),
        ("ftp://h/janus?room=1", "a room is http://HOST:PORT/janus?room=ROOM (WebRTC) or janus://HOST:PORT/ROOM (plain RTP)"),
    ])
    func webRTCRefusals(uri: String, message: String) {
        do {
            _ = try JanusRoomAddress(uri: uri)
            Issue.record("\(uri) was taken")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test("mode=sfu joins a VideoRoom room (this kiosk mixes), mode=mix or none an AudioBridge room; the description keeps the mode")
    func sfuMode() throws {
        let sfu = try JanusRoomAddress(uri: "https://10.0.0.5/janus?room=5555&mode=sfu&display=k-3")
        #expect(sfu.mode == .sfu && sfu.media == .webRTC && sfu.room == 5555 && sfu.display == "k-3")
        #expect(sfu.description == "https://10.0.0.5:8089/janus?room=5555&mode=sfu")
        let mix = try JanusRoomAddress(uri: "http://10.0.0.5:8088/janus?room=5555&mode=mix")
        #expect(mix.mode == .mix && mix.description == "http://10.0.0.5:8088/janus?room=5555")
        #expect(try JanusRoomAddress(uri: "http://h/janus?room=1").mode == .mix)
        #expect(try JanusRoomAddress(uri: "janus://h/1").mode == .mix)
    }

    @Test("a mode other than mix or sfu, a mode on janus://, and prebuffer in an SFU room are refused with what to give instead", arguments: [
        ("http://h/janus?room=1&mode=mcu", "mode is mix (an AudioBridge room: the server mixes) or sfu"),
        ("http://h/janus?room=1&mode=", "not ''"),
        ("janus://h/1?mode=sfu", "is joined over WebRTC: http(s)://HOST:PORT/janus?room=ROOM&mode=sfu"),
        ("http://h/janus?room=1&mode=sfu&prebuffer=4", "prebuffer is an AudioBridge setting (mode=mix)"),
    ])
    func sfuRefusals(uri: String, message: String) {
        do {
            _ = try JanusRoomAddress(uri: uri)
            Issue.record("\(uri) was taken")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test("the kiosk receives the room on the address it reaches the Janus host from, IPv4 or IPv6", arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "::1")])
    func localRoute(host: String, local: String) throws {
        #expect(try LocalRoute.sourceAddress(toward: host, port: 8088) == local)
        #expect(try LocalPort.free(.udp, on: local) > 0)
    }

    @Test("prebuffer is 1 to 50 packets, 4 unless given; a token or API secret on the command line is refused; a pin given directly is left out of messages", arguments: [
        ("janus://h/1?prebuffer=51", "prebuffer is a number of 20 ms packets from 1 to 50"),
        ("janus://h/1?prebuffer=0", "prebuffer is a number of 20 ms packets from 1 to 50"),
        ("janus://h/1?prebuffer=x", "prebuffer is a number of 20 ms packets from 1 to 50"),
        ("janus://h/1?pin=pin-z9&token=tok-z9", "give token-file=FILE"),
        ("janus://h/1?pin=pin-z9&apisecret=sec-z9", "give apisecret-file=FILE"),
        ("janus://h/1?pin=pin-z9&pin-file=/nonexistent/pin", "the pin file /nonexistent/pin: it cannot be read"),
    ])
    func refuses(uri: String, message: String) {
        #expect(throws: (any Error).self) { try JanusRoomAddress(uri: uri) }
        do {
            _ = try JanusRoomAddress(uri: uri)
        } catch {
            #expect(error.description.contains(message), "\(error)")
            for secret in ["pin-z9", "tok-z9", "sec-z9"] { #expect(!error.description.contains(secret), "\(error)") }
        }
    }

    @Test("a secret file holds one line, its trailing newline trimmed; the address's description names no secret")
    func secretFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try "pin-q4\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let address = try JanusRoomAddress(uri: "janus://h/1?pin-file=\(file.path)&prebuffer=1")
        #expect(address.pin?.value == "pin-q4")
        #expect(address.prebuffer == 1)
        #expect(!address.pinOnCommandLine)
        #expect(try JanusRoomAddress(uri: "janus://h/1").prebuffer == JanusRoomAddress.defaultPrebuffer)
        #expect(try JanusRoomAddress(uri: "janus://h/1?pin=pin-q4").pinOnCommandLine)
        var dumped = ""
        dump(address, to: &dumped)
        #expect(!"\(address) \(String(reflecting: address)) \(dumped)".contains("pin-q4"), "\(dumped)")
    }

    @Test("ca= naming a FIFO is refused before OpenSSL could block reading it")
    func caFIFO() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem").path
        #expect(mkfifo(fifo, 0o644) == 0)
        defer { unlink(fifo) }
        var refusal = ""
        do { _ = try JanusRoomAddress(uri: "https://127.0.0.1:8089/janus?room=1&ca=\(fifo)") } catch { refusal = error.description }
        #expect(refusal.contains("is refused: it is not a regular file"), "\(refusal)")
    }

    @Test("a room's answer that switches the audio to PCMU is named: the codecs of its first audio section are read")
    func answerCodecs() {
        let opus = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n"
        let pcmu = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\n"
        #expect(RoomPeerConnection.audioCodecs(in: opus) == ["OPUS"])
        #expect(RoomPeerConnection.audioCodecs(in: pcmu) == ["PCMU"])
        #expect(RoomPeerConnection.audioCodecs(in: "v=0\r\nm=video 9 RTP/AVP 96\r\n") == nil)
    }
}
