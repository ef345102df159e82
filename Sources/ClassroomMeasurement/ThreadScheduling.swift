import Foundation

/// A thread's scheduling policy and priority: what the real-time tests read on a streaming thread
/// (from a pad probe, which runs on it).
public struct ThreadScheduling: Sendable, Equatable, CustomStringConvertible {
    public let policy: Int32
    public let priority: Int32

    /// The calling thread's.
    public static func current() -> ThreadScheduling {
        var policy: Int32 = 0
        var parameters = sched_param()
        pthread_getschedparam(pthread_self(), &policy, &parameters)
        return ThreadScheduling(policy: policy, priority: parameters.sched_priority)
    }

    /// SCHED_RR at `priority`, as `AudioEngine.Configuration.realtimePriority` asks.
    public func isRoundRobin(at priority: Int32) -> Bool { policy == SCHED_RR && self.priority == priority }

    /// SCHED_OTHER: normal priority.
    public var isNormal: Bool { policy == SCHED_OTHER }

    public var description: String { "policy \(policy) priority \(priority)" }
}
