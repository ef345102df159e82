import Synchronization

/// Keeps an observer registered; cancelling it, or letting it go, unregisters the observer.
public final class ObservationToken: Sendable {
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) {
        cancellation = Mutex(cancel)
    }

    /// Unregisters the observer; events already being delivered may still reach it once.
    public func cancel() {
        let cancel = cancellation.withLock { pending in
            let taken = pending
            pending = nil
            return taken
        }
        cancel?()
    }

    deinit {
        cancel()
    }
}
