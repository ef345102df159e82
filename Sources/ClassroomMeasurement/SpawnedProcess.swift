import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starting a child process that hears signals: with no signal blocked and every signal at its
/// default. posix_spawn (and Foundation's `Process`) pass on the calling thread's mask, and a child
/// started from a thread that blocks signals (the cooperative pool's may) never heard them: a
/// `gst-launch -e` recording missed its SIGINT, a `timeout` its SIGTERM, and dash's `wait` its
/// SIGCHLD, so it waited for ever (all measured).
public enum SpawnedProcess {
    /// Starts `executable` (looked up on PATH) with `arguments` in this process's directory and
    /// environment; its standard output goes to `output` when given. Returns its pid: reap it with `waitpid`.
    public static func start(_ executable: String, _ arguments: [String], output: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output { posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawnp(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw MeasurementError("cannot start \(executable): \(String(cString: strerror(result)))") }
        return child
    }
}
