import Foundation
import Synchronization

/// The control socket (`--control PATH`): a Unix stream socket, created 0600, on which every
/// line a client sends is one JSON command and every command is answered with one JSON line.
///
/// One thread accepts and one thread serves each client; each waits in poll(2) on its socket
/// and on a wake pipe, so `stop()` ends them all at once.
final class ControlSocket: Sendable {
    /// The socket's path.
    let path: String
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Atomic<Bool>(false)
    /// The socket file this process created (device, inode): only that file is ever removed.
    private let created: (device: UInt64, inode: UInt64)
    /// Open connections per client user id.
    private let connections = Mutex<[UInt32: Int]>([:])
    private let onTrouble: @Sendable (String) -> Void

    /// The longest line a client may send; a longer one is refused and the client disconnected.
    static let maximumLine = ControlLines.maximumLine
    /// Connections one user may hold open at once; more are answered and closed.
    static let connectionsPerUser = 128

    /// Creates the socket file with mode 0600. A stale socket nobody listens on is replaced;
    /// one in use, or any other file at `path`, is an error.
    init(path: String, onTrouble: @escaping @Sendable (String) -> Void = { _ in }) throws(PlayerError) {
        self.path = path
        self.onTrouble = onTrouble
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw .controlSocket(path: path, reason: "the path is longer than the \(capacity - 1) bytes a Unix socket path may have; use a shorter one")
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFSOCK else {
                throw .controlSocket(path: path, reason: "a file that is not a socket is already there; remove it or choose another path")
            }
            if ControlSocket.answers(path) {
                throw .controlSocket(path: path, reason: "another player is listening on it; stop it or choose another path")
            }
            unlink(path)   // stale: its player is gone
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .controlSocket(path: path, reason: String(cString: strerror(errno))) }
        // Created 0600 from the start: the umask covers the window between bind and chmod.
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            close(descriptor)
            throw .controlSocket(path: path, reason: String(cString: strerror(bindError)))
        }
        chmod(path, 0o600)
        var mine = stat()
        guard lstat(path, &mine) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .controlSocket(path: path, reason: reason)
        }
        created = (UInt64(mine.st_dev), UInt64(mine.st_ino))
        guard listen(descriptor, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            unlink(path)
            throw .controlSocket(path: path, reason: reason)
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            unlink(path)
            throw .controlSocket(path: path, reason: reason)
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        listener = descriptor
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    /// Serves clients on their own threads; `handler` turns a line into the answer line.
    func start(handler: @escaping @Sendable (String) -> String) {
        let thread = Thread { [self] in acceptLoop(handler: handler) }
        thread.name = "control-socket"
        thread.start()
    }

    /// Stops accepting, disconnects every client and removes the socket file — only if it is still
    /// the one this process created (another player may have replaced a file it thought stale).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)   // the pipe stays readable: every waiting thread wakes
        var now = stat()
        if lstat(path, &now) == 0, UInt64(now.st_dev) == created.device, UInt64(now.st_ino) == created.inode { unlink(path) }
    }

    private func acceptLoop(handler: @escaping @Sendable (String) -> String) {
        var exhaustedSince: ContinuousClock.Instant?
        var said = false
        while waitReadable(listener) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                let error = errno
                if error == EINTR || error == ECONNABORTED { continue }
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    // Out of descriptors: the listener stays; wait for some to close and try again.
                    let since = exhaustedSince ?? .now
                    exhaustedSince = since
                    if !said {
                        said = true
                        onTrouble("the control socket cannot accept connections: \(String(cString: strerror(error))); retrying (too many open connections or files?)")
                    }
                    if ContinuousClock.now - since > .seconds(10) {
                        onTrouble("the control socket has not been able to accept connections for 10 s: \(String(cString: strerror(error)))")
                        exhaustedSince = .now
                    }
                    if !pause(milliseconds: 100) { break }
                    continue
                }
                onTrouble("the control socket stopped accepting connections: \(String(cString: strerror(error)))")
                break
            }
            if exhaustedSince != nil { onTrouble("the control socket accepts connections again"); exhaustedSince = nil; said = false }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let user = ControlSocket.peerUser(client)
            let admitted = connections.withLock { counts -> Bool in
                guard counts[user, default: 0] < ControlSocket.connectionsPerUser else { return false }
                counts[user, default: 0] += 1
                return true
            }
            guard admitted else {
                let refusal = CommandError(.unavailable, "too many connections from this user (\(ControlSocket.connectionsPerUser)); close some and try again")
                _ = send(client, refusal.answer(id: nil).serialized + "\n")
                close(client)
                continue
            }
            let thread = Thread { [self] in
                serve(client, handler: handler)
                connections.withLock { $0[user, default: 1] -= 1 }
            }
            thread.name = "control-client"
            thread.start()
        }
        close(listener)
    }

    /// The connecting process's user id (SO_PEERCRED).
    private static func peerUser(_ client: Int32) -> UInt32 {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides it behind _GNU_SOURCE).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return UInt32.max }
        return credentials.uid
    }

    private func serve(_ client: Int32, handler: @escaping @Sendable (String) -> String) {
        defer { close(client) }
        var lines = ControlLines()
        var chunk = [UInt8](repeating: 0, count: 4096)
        /// Answers one line; false when the client is gone or must be dropped.
        func answer(_ line: ControlLines.Line) -> Bool {
            switch line {
            case .command(let text): return send(client, handler(text) + "\n")
            case .empty: return send(client, (ControlLines.refusal(line) ?? "") + "\n")
            case .tooLong:
                _ = send(client, (ControlLines.refusal(line) ?? "") + "\n")
                return false
            }
        }
        while waitReadable(client) {
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if let last = lines.finish() { _ = answer(last) }
                return
            }
            for line in lines.feed(chunk[0..<count]) { guard answer(line) else { return } }
        }
    }

    /// Sleeps `milliseconds`; false when the socket was stopped meanwhile.
    private func pause(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, milliseconds)
        return fds[0].revents == 0
    }

    /// Waits until `descriptor` is readable; false once the socket is stopped.
    private func waitReadable(_ descriptor: Int32) -> Bool {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return false }
            return fds[0].revents != 0
        }
    }

    private func send(_ descriptor: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            // MSG_NOSIGNAL: a client that went away is an error here, not a SIGPIPE.
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }

    /// Whether something accepts connections at `path`.
    private static func answers(_ path: String) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    deinit {
        stop()
        close(wakeRead)
        close(wakeWrite)
    }
}
