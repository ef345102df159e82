import Foundation
import Testing
@testable import TLS

/// The TLS client against `openssl s_server` on loopback, with a CA and certificates of the test's own.
@Suite("TLS sessions verify whom they talk to", .serialized)
struct TLSSessionTests {
    @Test("a certificate the given CA signed for the address connected to is taken, and a request gets its reply")
    func verified() throws {
        let pki = try TestPKI(certifiedAddress: "127.0.0.1")
        defer { pki.remove() }
        let server = try TestServer(pki: pki, tls: true)
        defer { server.stop() }
        let reply = try server.exchange(trust: .init(caFile: pki.ca.path))
        #expect(reply.hasPrefix("HTTP/1.0 200"), "\(reply.prefix(200))")
    }

    @Test("refused, with OpenSSL's reason: a certificate the trusted CAs did not sign, or one for another address; a server that speaks no TLS is no trust failure", arguments: [
        ("the system's CAs", "127.0.0.1", true, "unable to get local issuer certificate"),
        ("another address", "127.0.0.2", true, "IP address mismatch"),
        ("no TLS at all", "127.0.0.1", false, "the TLS handshake failed"),
    ])
    func refused(name: String, certifiedAddress: String, tls: Bool, reason: String) throws {
        let pki = try TestPKI(certifiedAddress: certifiedAddress)
        defer { pki.remove() }
        let server = try TestServer(pki: pki, tls: tls)
        defer { server.stop() }
        do {
            let reply = try server.exchange(trust: .init(caFile: name == "the system's CAs" ? nil : pki.ca.path))
            Issue.record("\(name): a reply came: \(reply.prefix(100))")
        } catch {
            #expect(error.why.contains(reason), "\(name): \(error.why)")
            if case .untrusted = error { #expect(tls, "a server without TLS is not a trust failure") } else { #expect(!tls, "\(name): \(error)") }
        }
    }

    @Test("writing to a server that has gone is an error the caller gets, not a SIGPIPE that kills the process")
    func writeAfterTheServerLeft() throws {
        let pki = try TestPKI(certifiedAddress: "127.0.0.1")
        defer { pki.remove() }
        let server = try TestServer(pki: pki, tls: true)
        defer { server.stop() }
        let (session, descriptor) = try server.session(trust: .init(caFile: pki.ca.path))
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(5)
        server.stop()      // its sockets close with it
        // A first write (when the kill did not reset the connection already) draws the reset; taking
        // the reset off the socket leaves it closed, so the next write is EPIPE, which write(2)
        // raises as SIGPIPE.
        usleep(100_000)
        var byte: UInt8 = 0
        if recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT)) != -1 || errno != ECONNRESET {
            _ = Glibc.send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL))
            usleep(100_000)
            _ = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
        }
        #expect(throws: TLSSession.Failure.self, "a write to a closed connection should fail") {
            try session.write(Data(repeating: 65, count: 16), deadline: deadline)
        }
        session.close()
    }
}

/// A CA and a server certificate it signed for one IP address, in a folder of the test's own.
struct TestPKI {
    let folder: URL
    var ca: URL { folder.appendingPathComponent("ca.pem") }
    var certificate: URL { folder.appendingPathComponent("server.pem") }
    var key: URL { folder.appendingPathComponent("server.key") }

    init(certifiedAddress: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "subjectAltName=IP:\(certifiedAddress)\n".write(to: folder.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        let caKey = folder.appendingPathComponent("ca.key").path, request = folder.appendingPathComponent("server.csr").path
        for step in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca.path, "-days", "1", "-subj", "/CN=tls-tests CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", request, "-subj", "/CN=tls-tests server"],
            ["x509", "-req", "-in", request, "-CA", ca.path, "-CAkey", caKey, "-CAcreateserial", "-days", "1",
             "-extfile", folder.appendingPathComponent("server.ext").path, "-out", certificate.path],
        ] {
            let process = try TestServer.run("/usr/bin/openssl", step)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw TLSTestError("openssl \(step.joined(separator: " ")) failed") }
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// `openssl s_server -www` (or, without TLS, a python3 socket that answers in plain text) on 127.0.0.1.
final class TestServer: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, isRunning, kill).
    private let process: Process
    let port: Int

    init(pki: TestPKI, tls: Bool) throws {
        port = Int.random(in: 20_000...40_000)
        process = tls
            ? try TestServer.run("/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", pki.certificate.path, "-key", pki.key.path, "-www", "-quiet"])
            : try TestServer.run("/usr/bin/python3", ["-c", """
                import socket
                s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", \(port))); s.listen()
                while True:
                    c, _ = s.accept(); c.recv(1024); c.sendall(b"HTTP/1.0 200 OK\\r\\n\\r\\nplain text"); c.close()
                """])
        // Until it listens.
        for _ in 0..<100 {
            if (try? Self.connect(port: port)).map({ close($0); return true }) == true { return }
            usleep(50_000)
        }
        stop()
        throw TLSTestError("the server on port \(port) did not listen")
    }

    /// A verified session with the server, and its socket (the caller closes both).
    func session(trust: TLSSession.Trust) throws -> (TLSSession, Int32) {
        let descriptor = try Self.connect(port: port)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        do {
            return (try TLSSession(descriptor: descriptor, host: "127.0.0.1", trust: trust, deadline: Date().addingTimeInterval(5)), descriptor)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// A GET / over TLS with `trust`; the reply's text.
    func exchange(trust: TLSSession.Trust) throws(TLSSession.Failure) -> String {
        guard let descriptor = try? Self.connect(port: port) else { throw .closed("no connection") }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let deadline = Date().addingTimeInterval(5)
        let session = try TLSSession(descriptor: descriptor, host: "127.0.0.1", trust: trust, deadline: deadline)
        defer { session.close() }
        try session.write(Data("GET / HTTP/1.0\r\n\r\n".utf8), deadline: deadline)
        var reply = Data()
        while let piece = try session.read(deadline: deadline) { reply.append(piece) }
        return String(decoding: reply, as: UTF8.self)
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: in_port_t(UInt16(port).bigEndian), sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { close(descriptor); throw TLSTestError("refused") }
        return descriptor
    }
}

struct TLSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
