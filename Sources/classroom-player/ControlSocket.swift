import Foundation
import Synchronization

/// The control socket (`--control PATH`): a Unix stream socket, created 0600, on which every
/// line a client sends is one JSON command and every command is answered with one JSON line.
///
/// One thread accepts (a `SocketListener`) and one thread serves each client.
final class ControlSocket: Sendable {
    /// The socket's path.
    let path: String
    private let listener: SocketListener
    /// The socket file this process created (device, inode): only that file is ever removed.
    private let created: (device: UInt64, inode: UInt64)
    /// Open connections per client user id.
    private let connections = Mutex<[UInt32: Int]>([:])

    /// The longest line a client may send; a longer one is refused and the client disconnected.
    static let maximumLine = ControlLines.maximumLine
    /// Connections one user may hold open at once; more are answered and closed.
    static let connectionsPerUser = 128

    /// Creates the socket file with mode 0600. A stale socket nobody listens on is replaced;
    /// one in use, or any other file at `path`, is an error.
    init(path: String, onTrouble: @escaping @Sendable (String) -> Void = { _ in }) throws(PlayerError) {
        self.path = path
        guard let address = UnixSocketAddress(path: path) else {
            throw .controlSocket(path: path, reason: "the path is longer than the \(UnixSocketAddress.longestPath) bytes a Unix socket path may have; use a shorter one")
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
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .controlSocket(path: path, reason: String(cString: strerror(errno))) }
        // Created 0600 from the start: the umask covers the window between bind and chmod.
        let previousMask = umask(0o177)
        let bound = address.bind(descriptor)
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
        do {
            listener = try SocketListener(listening: descriptor, role: "the control socket", onTrouble: onTrouble)
        } catch {
            unlink(path)
            throw .controlSocket(path: path, reason: error.reason)
        }
    }

    /// Serves clients on their own threads; `handler` turns a line into the answer line.
    func start(handler: @escaping @Sendable (String) -> String) {
        listener.start(threadName: "control-socket") { [self] client in admit(client, handler: handler) }
    }

    /// Stops accepting, disconnects every client and removes the socket file — only if it is still
    /// the one this process created (another player may have replaced a file it thought stale).
    func stop() {
        guard listener.stop() else { return }
        var now = stat()
        if lstat(path, &now) == 0, UInt64(now.st_dev) == created.device, UInt64(now.st_ino) == created.inode { unlink(path) }
    }

    /// Serves `client` on a thread of its own, unless its user already holds `connectionsPerUser`.
    private func admit(_ client: Int32, handler: @escaping @Sendable (String) -> String) {
        let user = ControlSocket.peerUser(client)
        let admitted = connections.withLock { counts -> Bool in
            guard counts[user, default: 0] < ControlSocket.connectionsPerUser else { return false }
            counts[user, default: 0] += 1
            return true
        }
        guard admitted else {
            let refusal = CommandError(.unavailable, "too many connections from this user (\(ControlSocket.connectionsPerUser)); close some and try again")
            _ = SocketListener.send(client, refusal.answer(id: nil).serialized + "\n")
            close(client)
            return
        }
        let thread = Thread { [self] in
            serve(client, handler: handler)
            connections.withLock { $0[user, default: 1] -= 1 }
        }
        thread.name = "control-client"
        thread.start()
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
            case .command(let text): return SocketListener.send(client, handler(text) + "\n")
            case .empty: return SocketListener.send(client, (ControlLines.refusal(line) ?? "") + "\n")
            case .tooLong:
                _ = SocketListener.send(client, (ControlLines.refusal(line) ?? "") + "\n")
                return false
            }
        }
        while listener.waitReadable(client) {
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if let last = lines.finish() { _ = answer(last) }
                return
            }
            for line in lines.feed(chunk[0..<count]) { guard answer(line) else { return } }
        }
    }

    /// Whether something accepts connections at `path`.
    private static func answers(_ path: String) -> Bool {
        guard let address = UnixSocketAddress(path: path) else { return false }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        return address.connect(probe) == 0
    }

    deinit { stop() }
}
