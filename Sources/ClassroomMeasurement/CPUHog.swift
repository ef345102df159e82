import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps every core busy at normal priority for a bounded time, as a kiosk's other software may:
/// a child shell with one busy loop per core, each under `timeout`, so the load ends on its own
/// even if whoever started it dies. What the audio must hold up against (#21 item 2).
public final class CPUHog: Sendable {
    /// How many busy loops run (one per core unless asked otherwise).
    public let workers: Int
    private let pid: pid_t
    private let reaped = Mutex(false)

    /// Starts `workers` busy loops that stop after `limit` at the latest.
    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, lasting limit: Duration) throws {
        self.workers = max(1, workers)
        let seconds = max(1, Int((limit / .seconds(1)).rounded(.up)))
        // SIGTERM to the shell ends its loops (timeout passes it on), and nothing else.
        pid = try SpawnedProcess.start("/bin/sh", ["-c", """
            pids=""
            for _ in $(seq \(self.workers)); do timeout \(seconds) sh -c 'while :; do :; done' & pids="$pids $!"; done
            trap 'kill $pids 2>/dev/null' TERM
            wait
            """])
    }

    /// Ends the loops now and waits for the shell.
    public func stop() {
        reaped.withLock { reaped in
            guard !reaped else { return }
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            reaped = true
        }
    }

    deinit { stop() }
}
