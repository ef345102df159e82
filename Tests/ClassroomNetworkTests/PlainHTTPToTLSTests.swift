import Foundation
import Testing
@testable import ClassroomNetwork

/// A room named with http:// on a port that speaks only HTTPS (Janus's secure_port): said as such,
/// and refused for good with the https:// address to give, not retried for ever.
@Suite("Plain HTTP to an HTTPS port")
struct PlainHTTPToTLSTests {
    /// Runs `openssl s_server` (the TLS server it is, no HTTP behind it) on a free loopback port.
    private static func tlsServer(in folder: URL) throws -> (Process, Int) {
        let key = folder.appendingPathComponent("key.pem").path, cert = folder.appendingPathComponent("cert.pem").path
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"]
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        let port = try LocalPort.free(.tcp)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-quiet", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        return (server, port)
    }

    @Test("http:// to a TLS server: the exchange says it speaks TLS, and the advice gives the https:// address")
    func tlsPort() async throws {
        let folder = try TestFolder.make("plain-to-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, port) = try Self.tlsServer(in: folder)
        // SIGKILL: the test runner's children may inherit SIGTERM ignored.
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        var outcome = JanusHTTP.Outcome.failed("not tried")
        for _ in 0..<50 {
            outcome = JanusHTTP.exchange(host: "127.0.0.1", port: port, method: "GET", path: "/janus/info", body: nil, timeout: 5)
            if case .failed(let why) = outcome, why.contains("refused") {
                try await Task.sleep(for: .milliseconds(100))   // s_server is not listening yet
                continue
            }
            break
        }
        guard case .speaksTLS = outcome else {
            Issue.record("expected speaksTLS, got \(outcome)")
            return
        }
        let address = try JanusRoomAddress(uri: "http://127.0.0.1:\(port)/janus?room=1234&display=kiosk-7")
        let advice = JanusRoom.advice(for: .speaksHTTPS, address: address)
        print("FIGURE http:// to a TLS port: \(advice)")
        #expect(advice.contains("speaks HTTPS, not plain HTTP: join https://127.0.0.1:\(port)/janus?room=1234"), "\(advice)")
        #expect(!JanusProtocol.Failure.speaksHTTPS.isTransient, "a wrong scheme does not fix itself: it must not be retried for ever")
    }

    @Test("a server that closes plain HTTP without a word and speaks no TLS either is a server that does not answer (retried)")
    func silentPlainServer() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // Shutting the listener down wakes an accept still waiting; then it is closed.
        defer { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
        let port = try LocalPort.bind(listener, port: 0)
        #expect(listen(listener, 4) == 0)
        let closer = Thread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                usleep(50_000)
                close(connection)
            }
        }
        closer.start()
        let outcome = JanusHTTP.exchange(host: "127.0.0.1", port: port, method: "GET", path: "/janus/info", body: nil, timeout: 5)
        guard case .failed(let why) = outcome else {
            Issue.record("expected a failure that is retried, got \(outcome)")
            return
        }
        print("FIGURE a plain server that closes at once: \(why)")
        #expect(why.contains("closed the connection without a reply"), "\(why)")
    }
}
