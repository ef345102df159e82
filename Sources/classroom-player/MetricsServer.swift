import Foundation
import Synchronization

/// `--metrics HOST:PORT`: a small HTTP/1.0 server that answers `GET /metrics` with Prometheus'
/// text exposition and anything else with 404.
///
/// Plain sockets, as the control socket (one `SocketListener`): each scrape is answered on a
/// thread of its own and the connection closed. Prometheus scrapes every few seconds; nothing
/// here needs an event loop (SwiftNIO would add minutes to a clean build for this).
final class MetricsServer: Sendable {
    /// Where it listens, as given.
    let address: String
    /// The port it listens on (the one chosen by the system when 0 was given).
    let port: Int
    private let listener: SocketListener
    /// Scrapes being answered now.
    private let scrapes = Atomic<Int>(0)

    /// A request head longer than this is refused.
    static let maximumRequest = 8192
    /// Scrapes answered at once; more are told 503 and closed (a scraper opens one at a time).
    static let maximumScrapes = 16
    /// How long a client has from its accept to the end of its request head: 16 clients that
    /// sent a byte every 4 s held every slot for as long as they liked under a per-read wait.
    static let headDeadline = Duration.seconds(5)
    /// Whether it listens on every interface (`:PORT`, `0.0.0.0:PORT`, `[::]:PORT`): anyone who
    /// reaches the machine can read the class's metrics.
    let listensOnEveryInterface: Bool

    /// Binds `HOST:PORT` (an IPv4 or IPv6 address or a host name; `[::1]:9100` for IPv6; port 0 for any free one).
    init(address: String, onTrouble: @escaping @Sendable (String) -> Void = { _ in }) throws(PlayerError) {
        self.address = address
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw .cannotUse(role: "metrics address", what: address, reason: "give HOST:PORT, e.g. --metrics 127.0.0.1:9464 (port 0 picks a free one)")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &found)
        guard lookup == 0, let info = found else {
            throw .cannotUse(role: "metrics address", what: address, reason: "\(String(cString: gai_strerror(lookup))); give an address of this machine, e.g. 127.0.0.1")
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotUse(role: "metrics address", what: address, reason: String(cString: strerror(errno))) }
        var one: Int32 = 1
        // A restarted service binds again at once, without waiting out TIME_WAIT.
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotUse(role: "metrics address", what: address, reason: "\(reason); choose another port, or stop what listens there")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        var boundPort = Int(port)
        var wildcard = false
        if named == 0 {
            let family = Int32(bound.ss_family)
            (boundPort, wildcard) = withUnsafePointer(to: &bound) { pointer in
                if family == AF_INET6 {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        let any = withUnsafeBytes(of: $0.pointee.sin6_addr) { $0.allSatisfy { $0 == 0 } }
                        return (Int(UInt16(bigEndian: $0.pointee.sin6_port)), any)
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    (Int(UInt16(bigEndian: $0.pointee.sin_port)), $0.pointee.sin_addr.s_addr == INADDR_ANY)
                }
            }
        }
        self.port = boundPort
        listensOnEveryInterface = wildcard
        do {
            listener = try SocketListener(listening: descriptor, role: "the metrics server", onTrouble: onTrouble)
        } catch {
            throw .cannotUse(role: "metrics address", what: address, reason: error.reason)
        }
    }

    /// Answers scrapes on threads of their own; `exposition` makes the body of each.
    func start(exposition: @escaping @Sendable () -> String) {
        listener.start(threadName: "metrics-server") { [self] client in
            let deadline = ContinuousClock.now + Self.headDeadline
            guard scrapes.add(1, ordering: .relaxed).newValue <= Self.maximumScrapes else {
                scrapes.subtract(1, ordering: .relaxed)
                _ = SocketListener.send(client, Self.response("503 Service Unavailable", "too many scrapes at once (\(Self.maximumScrapes)); try again\n"))
                close(client)
                return
            }
            let thread = Thread { [self] in
                serve(client, headBy: deadline, exposition: exposition)
                scrapes.subtract(1, ordering: .relaxed)
            }
            thread.name = "metrics-scrape"
            thread.start()
        }
    }

    /// Stops accepting and closes the listening socket.
    func stop() { listener.stop() }

    /// Reads the request head until `deadline` (the whole head, not each read: a client trickling a
    /// byte at a time is dropped all the same) and answers it.
    private func serve(_ client: Int32, headBy deadline: ContinuousClock.Instant, exposition: @Sendable () -> String) {
        defer { close(client) }
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while !Self.endsHead(head), head.count < Self.maximumRequest {
            let left = (deadline - .now).components
            let milliseconds = left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1
            guard milliseconds > 1, listener.waitReadable(client, milliseconds: Int32(clamping: milliseconds)) else {
                _ = SocketListener.send(client, Self.response("408 Request Timeout", "the request head must arrive within \(Self.headDeadline)\n"))
                return
            }
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            head.append(contentsOf: chunk[0..<count])
        }
        let requestLine = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        if requestLine.count >= 2, requestLine[0] == "GET", requestLine[1] == "/metrics" || requestLine[1].hasPrefix("/metrics?") {
            _ = SocketListener.send(client, Self.response("200 OK", exposition(), type: "text/plain; version=0.0.4; charset=utf-8"))
        } else {
            _ = SocketListener.send(client, Self.response("404 Not Found", "classroom-player serves only GET /metrics\n"))
        }
    }

    /// An HTTP/1.0 response that closes the connection.
    private static func response(_ status: String, _ body: String, type: String = "text/plain; charset=utf-8") -> String {
        "HTTP/1.0 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
    }

    private static func endsHead(_ head: [UInt8]) -> Bool {
        head.count >= 4 && Array(head.suffix(4)) == [13, 10, 13, 10] || head.count >= 2 && Array(head.suffix(2)) == [10, 10]
    }
}
