import Foundation
import GStreamer
import Logging
import Synchronization

/// Real-time scheduling for the engine's streaming threads (the mixer, the inputs' sources, the
/// microphone chain): with every core busy at the same priority (a CPU hog at nice 0), the mixer's
/// thread was late often enough for the sound server to underrun a 30 ms output buffer in 1 of 2
/// busy minutes, while the servers' own threads ran real-time already (PulseAudio's null sink
/// SCHED_RR 5, PipeWire's data loops SCHED_FIFO 88). A thread gets SCHED_RR at `priority` as it
/// enters its task and SCHED_OTHER back as it leaves (pooled threads run other tasks next);
/// libpulse's own threads in the process get it too (`raiseClientLoops`).
///
/// A process without the right (no CAP_SYS_NICE and RLIMIT_RTPRIO below `priority`, as a systemd
/// user service has by default) keeps normal priority and says so once. rtkit is not asked.
final class RealtimeThreads: Sendable {
    /// The SCHED_RR priority: below the sound servers' own (PulseAudio 5), so the server is never
    /// kept from the device by a client.
    let priority: Int32
    private let logger: Logger
    private let tally = Mutex<(granted: Int, refused: Int)>((0, 0))

    init(priority: Int32, logger: Logger) {
        self.priority = priority
        self.logger = logger
    }

    /// Streaming threads that entered with real-time priority, and those refused it.
    var counts: (granted: Int, refused: Int) { tally.withLock { $0 } }

    /// On the streaming thread itself (the bus's sync handler).
    func handle(_ event: StreamingThreadEvent) {
        var parameters = sched_param()
        switch event {
        case .entered(let owner):
            parameters.sched_priority = priority
            let result = pthread_setschedparam(pthread_self(), SCHED_RR, &parameters)
            let firstRefusal = tally.withLock { tally -> Bool in
                if result == 0 { tally.granted += 1; return false }
                tally.refused += 1
                return tally.refused == 1
            }
            if result == 0 { raiseClientLoops() }
            if firstRefusal {
                logger.notice("the engine's streaming threads run at normal priority: real-time scheduling (SCHED_RR \(priority)) was refused (\(String(cString: strerror(result)))); a busy kiosk may underrun its output. An rtprio limit of \(priority) allows it (limits.d, or the systemd user manager's DefaultLimitRTPRIO)",
                              metadata: ["thread": "\(owner)"])
            }
        case .left:
            // libpulse's loop is no pooled thread: it carries every pulsesink of the process, and
            // pulsesink 1.26 says LEAVE on it when one of them stops while the others play on.
            guard !Self.onClientLoop() else { return }
            parameters.sched_priority = 0
            _ = pthread_setschedparam(pthread_self(), SCHED_OTHER, &parameters)
        }
    }

    /// True on one of libpulse's threaded main loops.
    private static func onClientLoop() -> Bool {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.hasPrefix(clientLoopName) ?? false
    }

    /// libpulse's threaded main loops in this process ("threaded-ml": pulsesink's one shared loop,
    /// each pulsesrc's own) carry the stream to and from the server, and GStreamer 1.22 posts no
    /// stream status for them (pulsesink 1.26 does, from its loop, as each sink starts and stops):
    /// with the engine's threads real-time and these not, a busy minute still underran 1 of 5
    /// times on PulseAudio. Each is raised once it exists (a sink reaching READY makes a new one),
    /// which a streaming thread entering its task comes after.
    private func raiseClientLoops() {
        var parameters = sched_param()
        parameters.sched_priority = priority
        for loop in Self.clientLoops() where loop.policy != SCHED_RR {
            _ = sched_setscheduler(loop.thread, SCHED_RR, &parameters)
        }
    }

    /// The name libpulse gives a threaded main loop's thread.
    static let clientLoopName = "threaded-ml"

    /// This process's libpulse main-loop threads (/proc/self/task) and their scheduling policies.
    static func clientLoops() -> [(thread: pid_t, policy: Int32)] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { task in
            guard let thread = pid_t(task),
                  let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                  name.hasPrefix(clientLoopName) else { return nil }
            return (thread, sched_getscheduler(thread))
        }
    }
}
