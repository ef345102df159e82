import Dispatch
import GStreamer

/// A running Dispatch source — a repeating timer or a signal watch — cancelled by `cancel()` or
/// when the token is released: the one wrapper the controller and the player keep their sources
/// in. Dispatch sources are thread-safe; Dispatch just does not declare them Sendable.
public final class DispatchSourceToken: @unchecked Sendable {
    private let source: any DispatchSourceProtocol

    private init(_ source: any DispatchSourceProtocol, handler: @escaping @Sendable () -> Void) {
        self.source = source
        source.setEventHandler(handler: handler)
        source.resume()
    }

    deinit { source.cancel() }

    /// Calls `handler` on `queue` every `interval`, the first time after `delay` (one interval unless given).
    public static func repeating(every interval: Duration, after delay: Duration? = nil, on queue: DispatchQueue,
                                 _ handler: @escaping @Sendable () -> Void) -> DispatchSourceToken {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(Int(ClockTime(delay ?? interval).nanoseconds)),
                       repeating: .nanoseconds(Int(ClockTime(interval).nanoseconds)))
        return DispatchSourceToken(timer, handler: handler)
    }

    /// Calls `handler` on `queue` each time the process receives `signal` (which the caller has set
    /// to SIG_IGN, so the default action does not run first).
    public static func signal(_ number: Int32, on queue: DispatchQueue, _ handler: @escaping @Sendable () -> Void) -> DispatchSourceToken {
        DispatchSourceToken(DispatchSource.makeSignalSource(signal: number, queue: queue), handler: handler)
    }

    /// Stops the source; its handler is not called again.
    public func cancel() { source.cancel() }
}
