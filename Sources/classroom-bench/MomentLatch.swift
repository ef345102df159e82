import ClassroomMeasurement
import Synchronization

/// Remembers the CLOCK_MONOTONIC time of the first event after it was armed; written from
/// streaming threads.
final class MomentLatch: Sendable {
    private let moment = Mutex<UInt64?>(nil)
    private let armed = Atomic<Bool>(false)

    /// Forgets the last moment and waits for the next event.
    func arm() {
        moment.withLock { $0 = nil }
        armed.store(true, ordering: .releasing)
    }

    /// An event happened now; only the first after `arm()` counts.
    func mark() {
        guard armed.load(ordering: .acquiring) else { return }
        let now = ProcessMeters.monotonicNanoseconds()
        moment.withLock { if $0 == nil { $0 = now } }
    }

    /// The moment, once marked.
    var marked: UInt64? { moment.withLock { $0 } }

    /// Waits (polling every millisecond, at most `timeout`) for the mark.
    func wait(timeout: Duration) async -> UInt64? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let marked { return marked }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return marked
    }
}
