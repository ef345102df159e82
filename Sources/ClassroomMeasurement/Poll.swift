import Foundation

/// Waiting for state that another thread or process changes and that posts nothing to wait for
/// (a route, a file's lines, a fake server's log): the one polling loop the test targets share.
public enum Poll {
    /// Checks `condition` every `interval` for at most `timeout`; returns whether it came true.
    public static func until(within timeout: Duration, every interval: Duration = .milliseconds(20), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return condition()
    }

    /// `until` on the caller's own thread, for a test that times what it waits for: in a parallel
    /// run on 2 cores, Swift's cooperative pool (a thread per core, held by tests that block) was
    /// seen to resume an async wait 40 s late, longer than the server's long poll it was timing.
    public static func blocking(within timeout: Duration, every interval: Duration = .milliseconds(20), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
        }
        return condition()
    }
}
