import Dispatch
import Foundation
import Logging

/// How a room keeps itself joined on its own thread, the same for an AudioBridge and a VideoRoom
/// room: join; long-poll while joined; rejoin with backoff while not; end with `leave()`, or with a
/// first join refused for good. Each room says what joining, applying an event and losing the room
/// mean for it.
protocol JanusRoomKeeper: AnyObject, Sendable {
    var address: JanusRoomAddress { get }
    var api: JanusProtocol { get }
    var logger: Logger { get }
    /// Signalled by `leave()`: every wait of the room's thread ends on it.
    var wake: DispatchSemaphore { get }
    /// Whether `leave()` came.
    var isStopping: Bool { get }
    /// The joined session with a new cancellation installed for its next poll (a loss after this
    /// cuts that very poll), or nil while not joined.
    func nextPoll() -> (session: UInt64, cancellation: HTTPCancellation)?
    /// The number of the rejoin attempt about to wait, counted.
    func nextAttempt() -> Int
    func attemptJoin() throws(JanusProtocol.Failure)
    func apply(_ event: JanusProtocol.Event, session: UInt64)
    func lost(session: UInt64?, because reason: String)
    /// Says that the server refused the room for good, with what to change.
    func refused(_ failure: JanusProtocol.Failure)
}

extension JanusRoomKeeper {
    /// The room's thread.
    func keepJoined() {
        do {
            try attemptJoin()
        } catch {
            guard !isStopping else { return }
            guard error.isTransient else {
                logger.error("room: \(address) refused: \(error)")
                refused(error)
                return
            }
            lost(session: nil, because: "the server \(address.host):\(address.port) cannot be joined now: \(error)")
        }
        while !isStopping {
            guard let (session, cancellation) = nextPoll() else {
                rejoinAfterBackoff()
                continue
            }
            do {
                let started = ContinuousClock.now
                let events = try api.poll(session: session, cancellation: cancellation)
                for event in events { apply(event, session: session) }
                if events.isEmpty { pace(since: started) }
            } catch {
                guard !isStopping else { return }
                lost(session: session, because: "\(error)")
            }
        }
    }

    /// Waits the backoff's next step, then tries to join again.
    private func rejoinAfterBackoff() {
        let attempt = nextAttempt()
        let wait = JanusRoom.backoff[min(attempt, JanusRoom.backoff.count - 1)]
        _ = wake.wait(timeout: .now() + .milliseconds(Int(wait.components.seconds * 1_000)))
        guard !isStopping else { return }
        do {
            try attemptJoin()
        } catch {
            // A leave cuts the rejoin: no next attempt to announce.
            guard !isStopping else { return }
            let next = JanusRoom.backoff[min(attempt + 1, JanusRoom.backoff.count - 1)]
            logger.warning("room: rejoining \(address) failed: \(error); next attempt in \(next)")
        }
    }

    /// Waits out what is left of `JanusRoom.emptyPollSpacing` since `started` (a leave cuts the wait).
    func pace(since started: ContinuousClock.Instant) {
        let left = JanusRoom.emptyPollSpacing - (ContinuousClock.now - started)
        guard left > .zero else { return }
        let milliseconds = Int(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)
        _ = wake.wait(timeout: .now() + .milliseconds(milliseconds))
        // A leave signalled the semaphore to end this wait: pass it on to the room's next wait.
        if isStopping { wake.signal() }
    }
}
