import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM ask for a clean stop; a second one while stopping exits at once.
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
        for number in [SIGINT, SIGTERM] {
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
                if count.value.add(1, ordering: .relaxed).newValue == 1 {
                    onStop(number)
                } else {
                    console.err("classroom-player: stopping at once (second signal); the output may be incomplete.")
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
