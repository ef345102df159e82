import ClassroomEngine
import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP (a terminal or SSH session gone) ask for a clean stop. A
/// second one while stopping waits for the output to be finalised; only a third exits at once.
final class SignalWatcher: Sendable {
    private let sources: [DispatchSourceToken]

    /// Calls `onStop` with the signal number on the first signal.
    init(console: Console, onStop: @escaping @Sendable (Int32) -> Void) {
        // A client or reader that went away is an error on that write, not the end of the process.
        signal(SIGPIPE, SIG_IGN)
        // Shared with the handlers by reference: one count for every signal.
        let count = SignalCount()
        sources = [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            return DispatchSourceToken.signal(number, on: .global()) {
                switch count.value.add(1, ordering: .relaxed).newValue {
                case 1:
                    onStop(number)
                case 2:
                    console.err("classroom-player: already stopping; the output is being finalised (a third signal abandons it).")
                default:
                    console.err("classroom-player: stopping at once (third signal); the output may be incomplete.")
                    _exit(128 + number)
                }
            }
        }
    }

    /// Stops watching.
    func cancel() { for source in sources { source.cancel() } }
}

/// How many stop signals came.
private final class SignalCount: Sendable {
    let value = Atomic<Int>(0)
}
