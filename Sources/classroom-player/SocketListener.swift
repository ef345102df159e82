import Foundation
import Synchronization

/// A listening socket and the thread that accepts on it, shared by the control socket and the
/// metrics server: each client is handed to `onClient` (which gives it a thread of its own), and
/// every wait — accepting, or a client reading — also watches a wake pipe, so `stop()` ends them all at once.
///
/// Out of descriptors (EMFILE and kin) the listener stays and retries every 100 ms: the class
/// must not lose its control or its metrics because a client leaked connections for a while.
final class SocketListener: Sendable {
    /// What the listener is, in messages: "the control socket", "the metrics server".
    let role: String
    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let onTrouble: @Sendable (String) -> Void

    /// Takes over a bound, listening `descriptor` (closed when accepting ends); throws the errno text when no wake pipe can be made.
    init(listening descriptor: Int32, role: String, onTrouble: @escaping @Sendable (String) -> Void) throws(ListenerError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ListenerError(reason: reason)
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        self.descriptor = descriptor
        self.role = role
        self.onTrouble = onTrouble
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// Why a listener could not be made.
    struct ListenerError: Error { let reason: String }

    /// Accepts on a thread named `threadName` until stopped; each client goes to `onClient`, which owns (and closes) it.
    func start(threadName: String, onClient: @escaping @Sendable (Int32) -> Void) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in acceptLoop(onClient) }
        thread.name = threadName
        thread.start()
    }

    /// Stops accepting and wakes every waiting thread; true for the one call that stopped it.
    @discardableResult
    func stop() -> Bool {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)   // the pipe stays readable: every waiting thread wakes
        return true
    }

    /// Whether `stop()` was called.
    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Waits until `client` is readable, up to `milliseconds` (-1: no limit); false on timeout or once stopped.
    func waitReadable(_ client: Int32, milliseconds: Int32 = -1) -> Bool {
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, fds[1].revents == 0, !isStopped else { return false }
            return fds[0].revents != 0
        }
    }

    /// Writes all of `bytes` to `client`; false when the client is gone.
    static func send(_ client: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            // MSG_NOSIGNAL: a client that went away is an error here, not a SIGPIPE.
            let sent = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }

    private func acceptLoop(_ onClient: @Sendable (Int32) -> Void) {
        defer { close(descriptor) }
        var exhaustedSince: ContinuousClock.Instant?
        var said = false
        while waitReadable(descriptor) {
            let client = accept(descriptor, nil, nil)
            if client < 0 {
                let error = errno
                if error == EINTR || error == ECONNABORTED { continue }
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    // Out of descriptors: the listener stays; wait for some to close and try again.
                    let since = exhaustedSince ?? .now
                    exhaustedSince = since
                    if !said {
                        said = true
                        onTrouble("\(role) cannot accept connections: \(String(cString: strerror(error))); retrying (too many open connections or files?)")
                    }
                    if ContinuousClock.now - since > .seconds(10) {
                        onTrouble("\(role) has not been able to accept connections for 10 s: \(String(cString: strerror(error)))")
                        exhaustedSince = .now
                    }
                    if !pause(milliseconds: 100) { return }
                    continue
                }
                onTrouble("\(role) stopped accepting connections: \(String(cString: strerror(error)))")
                return
            }
            if exhaustedSince != nil { onTrouble("\(role) accepts connections again"); exhaustedSince = nil; said = false }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            onClient(client)
        }
    }

    /// Sleeps `milliseconds`; false when stopped meanwhile.
    private func pause(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, milliseconds)
        return fds[0].revents == 0
    }

    deinit {
        stop()
        if !started.load(ordering: .acquiring) { close(descriptor) }   // else the accept loop closed it
        close(wakeRead)
        close(wakeWrite)
    }
}
