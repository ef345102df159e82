import COpenSSL
import Foundation

/// A TLS client session (OpenSSL, TLS 1.2 or later) over a connected non-blocking socket: the
/// handshake verifies the server's certificate chain against the system's CAs or a CA file, and
/// its name or IP address against `host`; verification is never skipped. Every wait ends at the
/// caller's deadline. Not shared between threads; `close()` before the socket is closed, and drop it.
public final class TLSSession {
    /// Whom to trust.
    public struct Trust: Sendable, Hashable, CustomStringConvertible {
        /// A PEM file of CA certificates; nil for the system's (/etc/ssl/certs).
        public let caFile: String?

        public init(caFile: String? = nil) { self.caFile = caFile }

        public var description: String { caFile.map { "the CA in \($0)" } ?? "the system's CAs" }
    }

    /// Why a session could not be set up or used.
    public enum Failure: Error, Sendable {
        /// The server's certificate failed verification (the reason as OpenSSL gives it).
        case untrusted(String)
        /// The handshake failed otherwise (not TLS, no common protocol …), or the trust cannot be loaded.
        case handshake(String)
        /// The deadline passed.
        case timedOut(String)
        /// The connection broke.
        case closed(String)

        /// One line for a log or an event.
        public var why: String {
            switch self {
            case .untrusted(let why), .handshake(let why), .timedOut(let why), .closed(let why): return why
            }
        }
    }

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let descriptor: Int32

    /// Performs the handshake with `host` (a name or an IP literal) on the connected `descriptor`.
    public init(descriptor: Int32, host: String, trust: Trust, deadline: Date) throws(Failure) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .handshake("no TLS context: \(TLSSession.lastError())") }
        // The context is set up before the session is made from it: SSL_new copies its verify mode
        // (a session made first verified nothing: the test's own CA passed as a system one).
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        _ = copenssl_ctx_min_tls12(context)
        // OpenSSL reads a FIFO or a device until it ends, which may be never: only a regular file is loaded.
        if let caFile = trust.caFile {
            var status = stat()
            guard stat(caFile, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                SSL_CTX_free(context)
                throw .handshake("the CA file \(caFile) is not a regular file; give the PEM file of the CA that signed the server's certificate")
            }
        }
        let loaded = trust.caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1, let ssl = SSL_new(context) else {
            let why = TLSSession.lastError()
            SSL_CTX_free(context)
            throw .handshake(trust.caFile.map { "the CA file \($0) holds no certificate OpenSSL can load (\(why))" } ?? "the system's CAs cannot be loaded (\(why))")
        }
        self.context = context
        self.ssl = ssl
        self.descriptor = descriptor
        if TLSSession.isAddressLiteral(host) {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            _ = SSL_set1_host(ssl, host)
            _ = copenssl_set_server_name(ssl, host)
        }
        _ = SSL_set_fd(ssl, descriptor)
        while true {
            let result = PipeSignalGuard.run { SSL_connect(ssl) }
            if result == 1 { return }
            let error = SSL_get_error(ssl, result)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                guard wait(for: error == SSL_ERROR_WANT_READ ? Int16(POLLIN) : Int16(POLLOUT), until: deadline) else {
                    throw .timedOut("the TLS handshake did not finish in time")
                }
            default:
                let verified = SSL_get_verify_result(ssl)
                if verified != X509_V_OK {
                    throw .untrusted("its certificate fails verification against \(trust): \(String(cString: X509_verify_cert_error_string(verified)))")
                }
                throw .handshake("the TLS handshake failed: \(TLSSession.lastError())")
            }
        }
    }

    /// Writes all of `data`.
    public func write(_ data: Data, deadline: Date) throws(Failure) {
        var sent = 0
        while sent < data.count {
            let count = PipeSignalGuard.run { data.withUnsafeBytes { bytes in SSL_write(ssl, bytes.baseAddress?.advanced(by: sent), Int32(data.count - sent)) } }
            if count > 0 { sent += Int(count); continue }
            try proceed(after: SSL_get_error(ssl, count), deadline: deadline, doing: "the request could not be sent in time")
        }
    }

    /// The next bytes that came (at most 64 KiB); nil at the end of the stream.
    public func read(deadline: Date) throws(Failure) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            // SSL_read may write too (a TLS 1.3 key update, an alert).
            let count = PipeSignalGuard.run { buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) } }
            if count > 0 { return Data(buffer[0..<Int(count)]) }
            let error = SSL_get_error(ssl, count)
            // The server's close_notify, or (as HTTP servers with Connection: close do) a plain close.
            if error == SSL_ERROR_ZERO_RETURN || (error == SSL_ERROR_SYSCALL && count == 0) { return nil }
            try proceed(after: error, deadline: deadline, doing: "no answer in time")
        }
    }

    /// Says goodbye (close_notify, not waited for); the socket stays the caller's.
    public func close() {
        _ = PipeSignalGuard.run { SSL_shutdown(ssl) }
    }

    // Freed here, not in close(): a handshake that throws from init leaves a session nobody can close
    // (each failed join leaked an SSL context with the system's CA store).
    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Waits as `error` asks (more to read or room to write), or throws what it means.
    private func proceed(after error: Int32, deadline: Date, doing what: String) throws(Failure) {
        switch error {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            guard wait(for: error == SSL_ERROR_WANT_READ ? Int16(POLLIN) : Int16(POLLOUT), until: deadline) else { throw .timedOut(what) }
        case SSL_ERROR_SYSCALL:
            throw .closed(errno == 0 ? "the connection was cut" : String(cString: strerror(errno)))
        default:
            throw .closed("TLS: \(TLSSession.lastError())")
        }
    }

    private func wait(for events: Int16, until deadline: Date) -> Bool { SocketWait.until(deadline, on: descriptor, for: events) }

    /// Whether `host` is an IPv4 or IPv6 literal (checked against the certificate's IP addresses, not names).
    private static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// OpenSSL's newest queued error, as text (the queue is emptied).
    private static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no reason given" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
