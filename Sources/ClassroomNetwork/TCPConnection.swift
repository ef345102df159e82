import Foundation
import TLS

/// One TCP connection whose every wait ends at a deadline (non-blocking socket and `poll`),
/// optionally TLS (`secure`): what `JanusHTTP` talks over. Not shared between threads; `close()` once.
struct TCPConnection {
    /// Why the connection could not be made or used.
    enum Failure: Error {
        case resolve(String)
        case connect(String)
        case timedOut(String)
        case closed(String)
        /// Closed or reset before one byte of a reply, or after a TLS alert: how an HTTPS server
        /// (Janus's secure_port) answers plain HTTP, and how a server that dies answers anything.
        case closedWithoutReply(String)
        /// TLS: the server's certificate failed verification.
        case untrusted(String)
        /// TLS: the handshake failed otherwise (the server speaks no TLS there, or the CA file is not one).
        case handshake(String)

        /// One line for a log or an event.
        var why: String {
            switch self {
            case .resolve(let why), .connect(let why), .timedOut(let why), .closed(let why), .closedWithoutReply(let why),
                 .untrusted(let why), .handshake(let why): return why
            }
        }

        init(_ failure: TLSSession.Failure) {
            switch failure {
            case .untrusted(let why): self = .untrusted(why)
            case .handshake(let why): self = .handshake(why)
            case .timedOut(let why): self = .timedOut(why)
            case .closed(let why): self = .closed(why)
            }
        }
    }

    private let descriptor: Int32
    private var tls: TLSSession?

    /// Connects to `host` (a name or an IPv4/IPv6 literal):`port`, trying each address it resolves to.
    init(host: String, port: Int, deadline: Date) throws(Failure) {
        let resolved = ResolvedHost.addresses(of: host, port: port, type: SOCK_STREAM)
        if let failure = resolved.failure { throw .resolve(failure) }
        var lastError = "no address"
        for address in resolved.addresses {
            let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { lastError = String(cString: strerror(errno)); continue }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            if address.connect(descriptor), TCPConnection.wait(descriptor, for: Int16(POLLOUT), until: deadline) {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 {
                    self.descriptor = descriptor
                    return
                }
                lastError = String(cString: strerror(error))
            } else {
                lastError = Date() >= deadline ? "no connection before the timeout" : String(cString: strerror(errno))
            }
            Glibc.close(descriptor)
        }
        throw .connect(lastError)
    }

    /// Runs the TLS handshake with `host` over the connection; from then on it reads and writes through TLS.
    mutating func secure(host: String, trust: TLSSession.Trust, deadline: Date) throws(Failure) {
        do { tls = try TLSSession(descriptor: descriptor, host: host, trust: trust, deadline: deadline) } catch { throw Failure(error) }
    }

    /// Writes all of `data` (or fails at the deadline).
    func write(_ data: Data, deadline: Date) throws(Failure) {
        if let tls {
            do { return try tls.write(data, deadline: deadline) } catch { throw Failure(error) }
        }
        var sent = 0
        while sent < data.count {
            guard TCPConnection.wait(descriptor, for: Int16(POLLOUT), until: deadline) else { throw .timedOut("the request could not be sent in time") }
            let count = data.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress?.advanced(by: sent), data.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno != EAGAIN, errno != EINTR { throw .closed(String(cString: strerror(errno))) }
            sent += max(count, 0)
        }
    }

    /// The next bytes that came (at most 64 KiB); nil at the end of the stream.
    func read(deadline: Date) throws(Failure) -> Data? {
        if let tls {
            do { return try tls.read(deadline: deadline) } catch { throw Failure(error) }
        }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            guard TCPConnection.wait(descriptor, for: Int16(POLLIN), until: deadline) else { throw .timedOut("no answer in time") }
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count == 0 { return nil }
            if errno != EAGAIN, errno != EINTR { throw .closed(String(cString: strerror(errno))) }
        }
    }

    /// What shuts this connection down from another thread, ending its waits at once; to be called
    /// only while it is open (`HTTPCancellation` detaches it before `close()`).
    var shutDown: @Sendable () -> Void {
        { [descriptor] in _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    func close() {
        tls?.close()
        Glibc.close(descriptor)
    }

    /// Waits for `events` on `descriptor` until `deadline`; false when it passed first.
    private static func wait(_ descriptor: Int32, for events: Int16, until deadline: Date) -> Bool { SocketWait.until(deadline, on: descriptor, for: events) }
}
