import Glibc

/// OpenSSL writes to its socket with write(2), which raises SIGPIPE when the peer has closed the
/// connection (a server that resets a handshake): the default action kills the process, and a
/// library must not kill the application that embeds it. While `body` runs, SIGPIPE is blocked on
/// this thread, and one it raised is taken before the mask is restored; the write fails with
/// EPIPE instead, which the session reports. A SIGPIPE already pending stays pending.
enum PipeSignalGuard {
    static func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipe, &previous)
        let pendingBefore = isPending()
        defer {
            if !pendingBefore, isPending() {
                var now = timespec()
                _ = sigtimedwait(&pipe, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }

    private static func isPending() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return sigismember(&pending, SIGPIPE) == 1
    }
}
