import Synchronization

/// A value behind a lock that closures running on streaming threads can share.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    /// Runs `body` with exclusive access.
    func withLock<T>(_ body: (inout Value) -> T) -> T { storage.withLock { body(&$0) } }
}
