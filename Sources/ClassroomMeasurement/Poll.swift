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
}
