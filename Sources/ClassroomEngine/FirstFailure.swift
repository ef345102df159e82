import Dispatch
import GStreamer
import Synchronization

/// The first failure reported while something starts, and a short wait for it: a state change
/// that fails gives its reason only on the bus, a moment later. Later failures are ignored.
public final class FirstFailure<Value: Sendable>: Sendable {
    private let first = Mutex<Value?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    /// Nothing recorded yet.
    public init() {}

    /// Keeps `value` when it is the first; says whether it was.
    @discardableResult
    public func record(_ value: Value) -> Bool {
        let isFirst = first.withLock { current in
            defer { if current == nil { current = value } }
            return current == nil
        }
        if isFirst { arrived.signal() }
        return isFirst
    }

    /// The first failure so far.
    public var current: Value? { first.withLock { $0 } }

    /// The first failure, waiting up to `timeout` for one to arrive.
    public func wait(upTo timeout: DispatchTimeInterval) -> Value? {
        _ = arrived.wait(timeout: .now() + timeout)
        return current
    }
}

extension FirstFailure where Value == (GLibError, String?) {
    /// Keeps `message`'s error and debug text when it is the first error on the bus.
    public func record(_ message: Message) {
        guard case .error(let error, let debug) = message.view else { return }
        record((error, debug))
    }
}
