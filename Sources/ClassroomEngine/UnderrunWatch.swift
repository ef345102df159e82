import GStreamer
import Synchronization

/// What a raise of the output buffer holds while it is under way, with one owner: the watch that
/// hears the sound server's underruns, the probe that reopens the output when it fires, and the
/// silent stream that keeps the device busy meanwhile (`AudioEngine+OutputBuffer`).
final class UnderrunWatch: Sendable {
    private struct Held {
        var watch: DebugLogWatch?
        var reopening: PadProbe?
        var keeper: DeviceKeeper?
    }

    private let held = Mutex(Held())

    /// Starts hearing underruns with the watch `make` returns, unless one is installed already.
    func startWatching(_ make: () throws -> DebugLogWatch) rethrows {
        try held.withLock { held in
            guard held.watch == nil else { return }
            held.watch = try make()
        }
    }

    /// Keeps `probe` until it fires (a probe lives as long as its token), or forgets it with nil.
    func holdReopening(_ probe: PadProbe?) { held.withLock { $0.reopening = probe } }

    /// Takes `keeper` as the one in use when `allowed` still says so under the lock; returns
    /// whether it was taken, and the keeper it replaces (for the caller to stop).
    func adopt(_ keeper: DeviceKeeper, if allowed: () -> Bool) -> (kept: Bool, previous: DeviceKeeper?) {
        held.withLock { held in
            guard allowed() else { return (false, nil) }
            defer { held.keeper = keeper }
            return (true, held.keeper)
        }
    }

    /// The silent stream keeping the device busy now, if a raise is under way.
    var keeper: DeviceKeeper? { held.withLock { $0.keeper } }

    /// Forgets `keeper` if it is still the one in use.
    func forget(_ keeper: DeviceKeeper) {
        held.withLock { held in
            if held.keeper === keeper { held.keeper = nil }
        }
    }

    /// Drops the pending reopen and hands back the keeper in use, for a teardown to stop; the watch stays.
    func takeForTeardown() -> DeviceKeeper? {
        held.withLock { held in
            defer { held.reopening = nil; held.keeper = nil }
            return held.keeper
        }
    }
}
