import Foundation
import TLS

/// The HTTP exchanges of `JanusProtocol`, over a plain TCP socket so that the kiosk takes from a
/// server only what it asked for: a reply larger than `maxReplyBytes` is cut off when it passes
/// the bound (a 150 MB long poll took the player from 58 to 414 MB through URLSession, and to
/// 218 MB through its delegate, whose cancel let libcurl read on), a redirect is answered as it
/// is, never followed, and every wait (connect, send, each read) ends at the exchange's deadline.
enum JanusHTTP {
    /// What one exchange brought.
    enum Outcome: Sendable {
        /// The whole reply.
        case reply(status: Int, body: Data)
        /// The server sent a redirect (to `location`).
        case redirected(status: Int, location: String)
        /// The reply passed the bound; what had come was dropped.
        case tooLarge(bytes: Int)
        /// No reply: refused, unreachable, timed out, or cut short.
        case failed(String)
        /// HTTPS: the server's certificate failed verification.
        case untrusted(String)
        /// HTTPS: no TLS could be spoken with the server (it speaks plain HTTP there, or the CA file is not one).
        case noTLS(String)
        /// HTTP: the server closed the connection without a word, and answers TLS there: an HTTPS port.
        case speaksTLS
    }

    /// Janus's largest replies (a long poll of 10 events with a full room each) stay far below this.
    static let maxReplyBytes = 1 << 20
    /// A status line and headers larger than this are not Janus's.
    private static let maxHeaderBytes = 16 << 10

    /// `method` `path` (with its query) on `host`:`port`, with a JSON `body`, within `timeout`;
    /// over TLS with `trust` (HTTPS), never without verifying the server. `cancellation` ends it early.
    static func exchange(host: String, port: Int, trust: TLSSession.Trust? = nil, method: String, path: String, body: Data?, timeout: TimeInterval,
                         cancellation: HTTPCancellation? = nil) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        var socket: TCPConnection
        do {
            socket = try TCPConnection(host: host, port: port, deadline: deadline)
        } catch {
            return .failed(error.why)
        }
        if let trust {
            do {
                try socket.secure(host: host, trust: trust, deadline: deadline)
            } catch {
                socket.close()
                switch error {
                case .untrusted(let why): return .untrusted(why)
                case .handshake(let why): return .noTLS(why)
                default: return .failed(error.why)
                }
            }
        }
        guard cancellation?.attach(socket.shutDown) ?? true else {
            socket.close()
            return .failed("cancelled")
        }
        defer {
            cancellation?.detach()
            socket.close()
        }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(authority)\r\nAccept: application/json\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        do {
            try socket.write(Data((head + "\r\n").utf8) + (body ?? Data()), deadline: deadline)
            return try read(from: socket, deadline: deadline)
        } catch {
            if case .closedWithoutReply = error, trust == nil, speaksTLS(host: host, port: port, deadline: deadline) { return .speaksTLS }
            return .failed(error.why)
        }
    }

    /// How a close without a reply reads in an error.
    private static let silently = "the server closed the connection without a reply"

    /// Whether `host`:`port` answers a TLS handshake: one that verifies, or one whose certificate
    /// fails verification (it still speaks TLS). Nothing is sent over it.
    private static func speaksTLS(host: String, port: Int, deadline: Date) -> Bool {
        guard var socket = try? TCPConnection(host: host, port: port, deadline: deadline) else { return false }
        defer { socket.close() }
        do {
            try socket.secure(host: host, trust: TLSSession.Trust(), deadline: deadline)
            return true
        } catch {
            if case .untrusted = error { return true }
            return false
        }
    }

    /// Reads the status line, the headers and the body (Content-Length, chunked, or to the close).
    private static func read(from socket: TCPConnection, deadline: Date) throws(TCPConnection.Failure) -> Outcome {
        var received = Data()
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            guard received.count <= maxHeaderBytes else { return .tooLarge(bytes: received.count) }
            let next: Data?
            do {
                next = try socket.read(deadline: deadline)
            } catch {
                // A reset before any reply is as silent as a close (a server that did not read the request).
                if case .closed(let why) = error, received.isEmpty { throw .closedWithoutReply("\(silently) (\(why))") }
                throw error
            }
            guard let piece = next else {
                // Nothing, or a TLS alert (a record of type 21 in TLS's version 3.x), is what a TLS server says to plain HTTP.
                let alert = received.count >= 2 && received[received.startIndex] == 21 && received[received.startIndex + 1] == 3
                if received.isEmpty || alert { throw .closedWithoutReply(silently) }
                throw .closed("the server closed the connection before its reply's headers")
            }
            received.append(piece)
            headEnd = received.range(of: separator)
        }
        guard let headEnd else { throw .closed("no headers") }
        let lines = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/"), let status = Int(statusWords[1]) else {
            throw .closed("not an HTTP reply (\(lines.first?.prefix(40) ?? ""))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if (300..<400).contains(status) { return .redirected(status: status, location: headers["location"] ?? "somewhere else") }
        var body = Data(received[headEnd.upperBound...])
        let length = headers["content-length"].flatMap(Int.init)
        if let length, length < 0 { throw .closed("a reply whose Content-Length is negative (\(length))") }
        if let length, length > maxReplyBytes { return .tooLarge(bytes: length) }
        let chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") == true
        // Chunk headers add a little: the bound on what is read allows for them.
        let bound = chunked ? maxReplyBytes + maxReplyBytes / 8 : maxReplyBytes
        while length.map({ body.count < $0 }) ?? true {
            guard body.count <= bound else { return .tooLarge(bytes: body.count) }
            guard let piece = try socket.read(deadline: deadline) else {
                guard length == nil else { throw .closed("the reply ended after \(body.count) of \(length ?? 0) bytes") }
                break
            }
            body.append(piece)
        }
        if chunked {
            guard let decoded = dechunk(body) else { throw .closed("a chunked reply that does not decode") }
            body = decoded
        }
        guard body.count <= maxReplyBytes else { return .tooLarge(bytes: body.count) }
        return .reply(status: status, body: body)
    }

    /// The body of a chunked reply; nil when it is not one.
    private static func dechunk(_ data: Data) -> Data? {
        var body = Data()
        var index = data.startIndex
        let lineEnd = Data("\r\n".utf8)
        while let end = data.range(of: lineEnd, in: index..<data.endIndex) {
            let sizeText = (String(decoding: data[index..<end.lowerBound], as: UTF8.self).split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces)
            // A size is hex digits only (RFC 9112 §7.1): no sign, and never more than a reply may hold.
            guard !sizeText.isEmpty, sizeText.count <= 8, sizeText.allSatisfy(\.isHexDigit),
                  let size = Int(sizeText, radix: 16), size <= maxReplyBytes else { return nil }
            if size == 0 { return body }
            guard data.distance(from: end.upperBound, to: data.endIndex) >= size else { return nil }
            let chunkEnd = data.index(end.upperBound, offsetBy: size)
            body.append(data[end.upperBound..<chunkEnd])
            index = min(data.index(chunkEnd, offsetBy: 2, limitedBy: data.endIndex) ?? data.endIndex, data.endIndex)
        }
        return nil
    }
}
