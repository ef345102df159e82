import Synchronization

/// A thread-safe counter.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// Zero.
    public init() {}

    /// Adds one.
    public func increment() { value.add(1, ordering: .relaxed) }

    /// The count.
    public var count: Int { value.load(ordering: .relaxed) }
}
