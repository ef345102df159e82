import Synchronization

/// The observers of one kind of event — the session's, the engine's, a lesson's — each registered
/// until its `ObservationToken` is cancelled or let go. Handlers are called outside the registry's lock.
public final class ObserverRegistry<Event: Sendable>: Sendable {
    public typealias Handler = @Sendable (Event) -> Void

    private struct Entries {
        var next: UInt64 = 1
        var handlers: [(id: UInt64, handler: Handler)] = []
    }

    private let entries = Mutex(Entries())

    public init() {}

    /// Registers `handler` for every later event; keep the observation to stay registered.
    public func add(_ handler: @escaping Handler) -> ObservationToken {
        let id = entries.withLock { entries in
            defer { entries.next += 1 }
            entries.handlers.append((entries.next, handler))
            return entries.next
        }
        return ObservationToken { [weak self] in self?.entries.withLock { $0.handlers.removeAll { $0.id == id } } }
    }

    /// The handlers registered now, in registration order.
    public var handlers: [Handler] { entries.withLock { $0.handlers.map(\.handler) } }

    /// Calls every handler registered now with `event`, on the calling thread.
    public func notify(_ event: Event) {
        for handler in handlers { handler(event) }
    }
}
