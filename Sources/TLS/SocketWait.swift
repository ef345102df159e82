import Foundation

/// `poll` on one descriptor until a deadline: every wait of a connection that must never hang.
public enum SocketWait {
    /// Waits for `events` (POLLIN, POLLOUT) on `descriptor` until `deadline`; false when it passed first or the descriptor failed.
    public static func until(_ deadline: Date, on descriptor: Int32, for events: Int16) -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1_000, 60_000).rounded(.up)))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }
}
