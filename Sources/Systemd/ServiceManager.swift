import CSystemd
import Foundation

/// The service manager's notification protocol (sd-daemon): readiness, status, the watchdog.
///
/// Outside a `Type=notify` unit (`NOTIFY_SOCKET` unset) every notification is a no-op.
public enum ServiceManager {
    /// Whether the process was started with a notification socket (`NOTIFY_SOCKET`).
    public static var isNotifySocketSet: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil }

    /// Sends newline-separated `KEY=VALUE` assignments (`READY=1`, `STATUS=…`, `WATCHDOG=1`,
    /// `STOPPING=1`); wraps `sd_notify`. Returns false when there is no socket to send to.
    @discardableResult
    public static func notify(_ assignments: String) throws(SystemdError) -> Bool {
        let result = sd_notify(0, assignments)
        if result < 0 { throw .notifyFailed(state: assignments, errno: -result) }
        return result > 0
    }

    /// How often the service manager expects `WATCHDOG=1` (`WatchdogSec=`), nil when it does not;
    /// wraps `sd_watchdog_enabled`.
    public static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }
}
