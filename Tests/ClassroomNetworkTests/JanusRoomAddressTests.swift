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

    @Test("the kiosk receives the room on the address it reaches the Janus host from, IPv4 or IPv6", arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "::1")])
    func localRoute(host: String, local: String) throws {
        #expect(try LocalRoute.sourceAddress(toward: host, port: 8088) == local)
        #expect(try LocalPort.free(.udp, on: local) > 0)
    }
}
