import Synchronization

/// Ends an HTTP exchange in flight from another thread: the room cuts the long poll of a session it
/// has lost, since Janus answers a destroyed session's pending poll only when its 30 s are up.
final class HTTPCancellation: Sendable {
    /// Whether `cancel()` came, and what shuts the exchange's connection down while it is open.
    private let state = Mutex<(cancelled: Bool, shutDown: (@Sendable () -> Void)?)>((false, nil))

    /// An exchange under way ends at once (its connection is shut down); one not yet started fails as it starts.
    func cancel() {
        // Under the lock: the exchange detaches before it closes, so this never shuts down a descriptor reused since.
        state.withLock { state in
            state.cancelled = true
            state.shutDown?()
        }
    }

    /// Lets `cancel()` shut the exchange's open connection down; false when cancelled already.
    func attach(_ shutDown: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.shutDown = shutDown
            return true
        }
    }

    /// The connection is about to close: `cancel()` no longer touches it.
    func detach() { state.withLock { $0.shutDown = nil } }
}
