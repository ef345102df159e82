import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Calls `tick(n)` every 10 ms at absolute CLOCK_MONOTONIC deadlines on a thread of its own, the
/// way an RTC SDK delivers decoded frames; a late tick runs at once and the next keeps the grid.
///
/// With a `realtimePriority` the thread asks for SCHED_RR at it, as the engine's streaming threads
/// do: a feeder at normal priority on a machine whose cores are busy wakes late, and the engine
/// then rightly plays the gap it left.
public final class RealTimeFeeder: Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    private let joined = Atomic<Bool>(false)
    /// Ticks that started more than 10 ms after their deadline.
    public let lateTicks = Atomic<Int>(0)

    /// Starts ticking `count` times (0: until stopped).
    public init(count: Int = 0, period: UInt64 = 10_000_000, realtimePriority: Int32? = nil, tick: @escaping @Sendable (Int) -> Void) {
        let start = ProcessMeters.monotonicNanoseconds()
        Thread.detachNewThread { [self] in
            if let realtimePriority {
                var parameters = sched_param()
                parameters.sched_priority = realtimePriority
                // Refused (no rtprio right): the ticks run at normal priority, and `lateTicks` says how that went.
                _ = pthread_setschedparam(pthread_self(), SCHED_RR, &parameters)
            }
            var index = 0
            while running.load(ordering: .relaxed), count == 0 || index < count {
                let deadline = start + UInt64(index) * period
                var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
                if ProcessMeters.monotonicNanoseconds() > deadline + period { lateTicks.add(1, ordering: .relaxed) }
                tick(index)
                index += 1
            }
            finished.signal()
        }
    }

    /// Stops ticking and waits for the thread to finish its tick.
    public func stop() {
        running.store(false, ordering: .relaxed)
        join()
    }

    /// Waits until the thread has finished (all `count` ticks run, or stopped).
    public func join() {
        if !joined.exchange(true, ordering: .acquiringAndReleasing) { finished.wait() }
    }
}
