import Logging
import Synchronization

/// The one owner of the kiosk's audio session: configuration, leases, policy, volumes, ducking,
/// routes, interruptions and alarms (DESIGN §4).
///
/// Every method is synchronous and thread-safe: the whole state is one ``SessionState`` value
/// behind one lock, and everything derived from it is computed by ``SessionResolver``. Events
/// are delivered in mutation order, never while the lock is held; an observer may call back into
/// the session, and the events that call causes are delivered after the current one.
public final class AudioSession: Sendable {
    /// A function that receives every event.
    public typealias Observer = @Sendable (SessionEvent) -> Void

    struct Core {
        var state: SessionState
        var outbox: [SessionEvent] = []
        var isDelivering = false

        mutating func takeBatch() -> [SessionEvent] {
            defer { outbox.removeAll(keepingCapacity: true) }
            return outbox
        }
    }

    private static let sessionCounter = Atomic<UInt64>(0)

    let core: Mutex<Core>
    let observers = ObserverRegistry<SessionEvent>()
    let hardware: any AudioHardware
    let logger: Logger

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - settings: the integrator's choices; validated here.
    ///   - hardware: where hardware characteristics and the I/O state come from.
    ///   - logger: where the session logs corrections, refusals and transitions.
    /// - Throws: ``AudioSessionError/badParam(reason:)`` naming a setting that is out of range.
    public init(
        settings: SessionSettings = SessionSettings(), hardware: any AudioHardware, logger: Logger
    ) throws(AudioSessionError) {
        try settings.validate()
        let sessionID = Self.sessionCounter.wrappingAdd(1, ordering: .relaxed).newValue
        core = Mutex(Core(state: SessionState(settings: settings, sessionID: sessionID)))
        self.hardware = hardware
        var logger = logger
        logger[metadataKey: "audio-session"] = "\(sessionID)"
        self.logger = logger
    }

    /// A snapshot of the whole state.
    public var state: SessionState {
        core.withLock { $0.state }
    }

    /// What the engine applies now, resolved from one snapshot of the state.
    public var resolvedState: ResolvedState {
        SessionResolver.resolve(state)
    }

    /// The effective configuration.
    public var configuration: AudioConfiguration {
        resolvedState.configuration
    }

    /// The current route.
    public var currentRoute: AudioRoute {
        resolvedState.route
    }

    /// The session's identity, carried by the tokens it issues.
    public var sessionID: UInt64 {
        core.withLock { $0.state.sessionID }
    }

    /// Registers an observer for every later event; keep the returned observation to stay registered.
    public func observe(_ observer: @escaping Observer) -> ObservationToken {
        observers.add(observer)
    }

    /// Applies one mutation atomically and queues the events it causes.
    ///
    /// The body receives a copy of the state and the state resolved before the change; when it
    /// throws, nothing changes and nothing is announced.
    func mutate<Result: Sendable, Failure: Error>(
        _ body: (inout SessionState, ResolvedState, inout SessionMutation) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let result = try core.withLock { core throws(Failure) -> Result in
            let before = SessionResolver.resolve(core.state)
            var working = core.state
            var mutation = SessionMutation()
            let result = try body(&working, before, &mutation)
            var after = SessionResolver.resolve(working)
            if working.portOverride != .none, mutation.endsOverride || after.configuration != before.configuration {
                // An override lasts until the next route change.
                working.portOverride = .none
                after = SessionResolver.resolve(working)
            }
            core.state = working
            core.outbox.append(contentsOf: mutation.events(from: before, to: after))
            return result
        }
        deliverPending()
        return result
    }

    /// Delivers queued events unless another caller is already delivering them.
    private func deliverPending() {
        // The observers are read with each batch, under the session's lock: a batch goes to one set of observers.
        var batch = core.withLock { core -> (events: [SessionEvent], observers: [Observer])? in
            guard !core.isDelivering, !core.outbox.isEmpty else { return nil }
            core.isDelivering = true
            return (core.takeBatch(), observers.handlers)
        }
        while let (events, observers) = batch {
            for event in events {
                logger.trace("session event", metadata: ["event": "\(event)"])
                for observer in observers {
                    observer(event)
                }
            }
            batch = core.withLock { core -> (events: [SessionEvent], observers: [Observer])? in
                guard !core.outbox.isEmpty else {
                    core.isDelivering = false
                    return nil
                }
                return (core.takeBatch(), self.observers.handlers)
            }
        }
    }
}
