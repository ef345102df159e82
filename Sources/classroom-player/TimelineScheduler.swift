import Dispatch
import Synchronization

/// Runs a timeline's steps on the command queue when each comes due, each answered by a `step`
/// event, and counts those still to come (a run that waits for its timeline asks `pending`).
final class TimelineScheduler: Sendable {
    private let queue: DispatchQueue
    private let remaining = Mutex(0)

    init(queue: DispatchQueue) { self.queue = queue }

    /// Steps scheduled and not yet run.
    var pending: Int { remaining.withLock { $0 } }

    /// Schedules every step from now. `isRunning` is asked when a step is due (a stopping run skips
    /// it), `execute` does it, `emit` says how it went, `stepDone` follows each step.
    func schedule(_ timeline: Timeline, isRunning: @escaping @Sendable () -> Bool,
                  execute: @escaping @Sendable (Command, String) throws(CommandError) -> [(String, JSON)],
                  emit: @escaping @Sendable (String, [(String, JSON)]) -> Void, stepDone: @escaping @Sendable () -> Void) {
        let start = DispatchTime.now()
        remaining.withLock { $0 += timeline.steps.count }
        for step in timeline.steps {
            queue.asyncAfter(deadline: start + .nanoseconds(Int(step.at * 1e9))) { [self] in
                guard isRunning() else { return }
                var fields: [(String, JSON)] = [("step", .number(Double(step.number))), ("at", .number(step.at)), ("do", .string(step.command.verb))]
                do throws(CommandError) {
                    fields += [("ok", .bool(true))] + (try execute(step.command, "timeline step \(step.number)"))
                } catch {
                    fields += [("ok", .bool(false)), ("error", .string(error.code.rawValue)), ("message", .string(error.message))]
                }
                emit("step", fields)
                remaining.withLock { $0 -= 1 }
                stepDone()
            }
        }
    }
}
