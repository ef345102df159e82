import TLS
import Testing
@testable import ClassroomNetwork

@Suite("What a refused room tells the integrator to change")
struct JanusRoomAdviceTests {
    private static func address(ca: String?) -> JanusRoomAddress {
        JanusRoomAddress(media: .webRTC, host: "janus.school.example", port: 8089, trust: TLSSession.Trust(caFile: ca), room: 1234, display: "kiosk")
    }

    @Test("a certificate the CA in ca= did not sign asks for the CA that did, not for ca= again")
    func caGiven() {
        let advice = JanusRoom.advice(for: .untrusted("its certificate fails verification against the CA in /etc/school/ca.pem: unable to get local issuer certificate"),
                                      address: Self.address(ca: "/etc/school/ca.pem"))
        #expect(advice.contains("the CA in /etc/school/ca.pem did not sign it: give ca= the PEM of the CA that did"), "\(advice)")
        #expect(!advice.contains("give ca=FILE"), "\(advice)")
    }

    @Test("a certificate for another name asks for a certificate that names the host, with or without ca=", arguments: [nil, "/etc/school/ca.pem"])
    func anotherName(ca: String?) {
        let advice = JanusRoom.advice(for: .untrusted("its certificate fails verification against the system's CAs: hostname mismatch"), address: Self.address(ca: ca))
        #expect(advice.contains("its certificate is for another name: give the server a certificate that names janus.school.example"), "\(advice)")
        #expect(!advice.contains("ca="), "\(advice)")
    }

    @Test("without ca=, a certificate the system's CAs do not trust asks for ca=FILE")
    func systemCAs() {
        let advice = JanusRoom.advice(for: .untrusted("its certificate fails verification against the system's CAs: self-signed certificate"), address: Self.address(ca: nil))
        #expect(advice.contains("give ca=FILE (the PEM of the CA that signed the server's certificate)"), "\(advice)")
    }
}
