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

    /// The longest line a client may send; a longer one is refused and the client disconnected.
    static let maximumLine = 65_536

    /// Creates the socket file with mode 0600. A stale socket nobody listens on is replaced;
    /// one in use, or any other file at `path`, is an error.
    init(path: String) throws(PlayerError) {
        self.path = path
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
        guard listen(descriptor, 8) == 0 else {
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

    /// Stops accepting, disconnects every client and removes the socket file.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)   // the pipe stays readable: every waiting thread wakes
        unlink(path)
    }

    private func acceptLoop(handler: @escaping @Sendable (String) -> String) {
        while waitReadable(listener) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                break
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let thread = Thread { [self] in serve(client, handler: handler) }
            thread.name = "control-client"
            thread.start()
        }
        close(listener)
    }

    private func serve(_ client: Int32, handler: @escaping @Sendable (String) -> String) {
        defer { close(client) }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while waitReadable(client) {
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            pending.append(contentsOf: chunk[0..<count])
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                guard send(client, handler(trimmed) + "\n") else { return }
            }
            if pending.count > ControlSocket.maximumLine {
                let refusal = CommandError(.badRequest, "a line longer than \(ControlSocket.maximumLine) bytes; send one JSON object per line")
                _ = send(client, refusal.answer(id: nil).serialized + "\n")
                return
            }
        }
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
