import Foundation
import Synchronization

/// The service manager's side of `NOTIFY_SOCKET` (or journald's side of its native socket): a
/// Unix datagram socket the test binds, on which it records every datagram the player sends,
/// with when it came.
final class NotifyListener: Sendable {
    /// The socket's path: give it to the player as NOTIFY_SOCKET.
    let path: String
    private let descriptor: Int32
    private let received = Mutex<[(at: ContinuousClock.Instant, message: String)]>([])
    private let stopped = Atomic<Bool>(false)

    /// Binds `directory`/notify.sock and starts receiving on a thread of its own.
    convenience init(in directory: URL) throws {
        try self.init(at: directory.appendingPathComponent("notify.sock").path)
    }

    /// Binds `path` and starts receiving on a thread of its own.
    init(at path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard descriptor >= 0, path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PlayerTestError.setupFailed("cannot make a datagram socket at \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw PlayerTestError.setupFailed("cannot bind \(path): \(String(cString: strerror(errno)))") }
        let thread = Thread { [self] in receive() }
        thread.start()
    }

    /// Every notification so far, in order.
    var messages: [String] { received.withLock { $0.map(\.message) } }

    /// The notifications that came after `instant`.
    func messages(since instant: ContinuousClock.Instant) -> [String] { received.withLock { $0.filter { $0.at > instant }.map(\.message) } }

    /// How many notifications so far contain `assignment` (e.g. "WATCHDOG=1").
    func count(_ assignment: String) -> Int { messages.filter { $0.split(separator: "\n").contains(Substring(assignment)) }.count }

    /// Stops receiving and closes the socket.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private func receive() {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .relaxed) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return }
            guard poller.revents & Int16(POLLIN) != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            received.withLock { $0.append((.now, message)) }
        }
    }

    deinit { unlink(path) }
}
