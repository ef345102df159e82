import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP (a terminal or SSH session gone) ask for a clean stop. A
/// second one while stopping waits for the output to be finalised; only a third exits at once.
final class SignalWatcher: Sendable {
    private let sources: [SignalSource]

    /// DispatchSource is thread-safe; Dispatch just does not declare it Sendable.
    private struct SignalSource: @unchecked Sendable {
        let source: DispatchSourceSignal
    }

    /// Calls `onStop` with the signal number on the first signal.
    init(console: Console, onStop: @escaping @Sendable (Int32) -> Void) {
        // A client or reader that went away is an error on that write, not the end of the process.
        signal(SIGPIPE, SIG_IGN)
        var sources: [SignalSource] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(SignalSource(source: source))
        }
        self.sources = sources
        // Shared with the handlers by reference: one count for both signals.
        let count = SignalCount()
        for entry in sources {
            let number = Int32(entry.source.handle)
            entry.source.setEventHandler {
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
            entry.source.resume()
        }
    }

    /// Stops watching.
    func cancel() { for entry in sources { entry.source.cancel() } }
}

/// How many stop signals came.
private final class SignalCount: Sendable {
    let value = Atomic<Int>(0)
}
