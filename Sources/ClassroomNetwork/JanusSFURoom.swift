import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// A kiosk in a Janus VideoRoom room (an SFU, `mode=sfu`): the server forwards every packet as it
/// came and mixes nothing, so the class is mixed here, where the kiosk's own mixer already is. The
/// kiosk publishes its uplink once (Opus in 10 ms packets with in-band FEC, one PeerConnection) and
/// subscribes to each classmate who publishes audio (one receive-only PeerConnection each,
/// `ClassmateConnection`), whose voice becomes an engine input of its own (`rtc-room-<display>`):
/// added when the classmate publishes, removed when they leave, unpublish or are lost. A classmate
/// who stops sending stalls nothing: each input is live on its own.
///
/// Like `JanusRoom`, it keeps itself joined: the long poll keeps the session alive; a server that
/// stops answering, or a publishing PeerConnection that fails, is `lost` (every classmate's input
/// goes with it) and the room rejoins with backoff. A classmate's subscription that fails is
/// made again, alone. Protocol details are in `JanusProtocol+VideoRoom`.
public final class JanusSFURoom: JanusRoomKeeper {
    /// The most classmates mixed: a class, with room to spare (each is a PeerConnection and an input).
    public static let maxClassmates = 48
    /// The uplink's packets: a VideoRoom forwards them as they are, so the shortest Opus packet WebRTC uses.
    public static let packetTime = 10

    /// Where the room is.
    public let address: JanusRoomAddress
    let engine: AudioEngine
    let api: JanusProtocol
    let logger: Logger
    /// How each classmate's jitter buffer holds its packets.
    let jitterBuffer: JitterBufferSetting

    /// A classmate: a publisher of the room whose voice this kiosk mixes.
    struct Classmate: Sendable {
        let participant: JanusRoom.Participant
        let input: AudioInput
        /// The subscriber handle and the transaction of its `join` (the offer comes on the poll).
        var handle: UInt64?
        var connection: ClassmateConnection?
    }

    struct State: Sendable {
        var session: UInt64?
        /// The publisher handle: joins, publishes, and hears who comes and goes.
        var handle: UInt64?
        var ownID: UInt64?
        var privateID: UInt64?
        var publisher: RoomPeerConnection?
        var classmates: [UInt64: Classmate] = [:]
        /// Publishers that left or unpublished since the join: a subscription made again skips them.
        var departed: Set<UInt64> = []
        /// Publishers passed over since the join because `maxClassmates` were mixed, and whether that was said.
        var ignored = 0
        var crowdingSaid = false
        var muted = true
        var stopping = false
        var poll: HTTPCancellation?
        var joining: HTTPCancellation?
        var threadRuns = false
        var attempt = 0
        var joinedAt: ContinuousClock.Instant?
        var handler: (@Sendable (JanusRoom.Event) -> Void)?
    }

    let state = Mutex(State())
    /// Requests that need no answer from the poll (detach, farewell), in the order they were decided.
    let requests = DispatchQueue(label: "classroom-audio.sfu-room")
    /// Subscriptions and answers: they wait on HTTP and on ICE gathering, never on the room's thread.
    let subscriptions = DispatchQueue(label: "classroom-audio.sfu-room.subscriptions")
    let wake = DispatchSemaphore(value: 0)
    private let threadEnded = DispatchSemaphore(value: 0)

    /// Prepares the room; nothing is joined yet. Throws for an address that is not a VideoRoom's.
    public init(address: JanusRoomAddress, engine: AudioEngine, jitterBuffer: JitterBufferSetting = PeerFeed.defaultJitterBuffer,
                logger: Logger) throws(EngineError) {
        guard address.mode == .sfu, address.media == .webRTC else {
            throw .badEndpoint(address.description, reason: "a VideoRoom room is joined over WebRTC with mode=sfu: http(s)://HOST:PORT/janus?room=ROOM&mode=sfu")
        }
        guard let url = address.apiURL else { throw .badEndpoint(address.description, reason: "the host cannot be put in a URL") }
        self.address = address
        self.engine = engine
        self.api = JanusProtocol(url: url, timeout: 5, token: address.token?.value, apiSecret: address.apiSecret?.value, trust: address.trust)
        self.jitterBuffer = jitterBuffer
        self.logger = logger
    }

    /// Joins on the room's own thread (the caller goes on at once), muted or not. What will not fix
    /// itself comes as `refused`; a server that does not answer is `lost` and retried.
    public func join(muted: Bool, onEvent: @escaping @Sendable (JanusRoom.Event) -> Void) {
        state.withLock { $0.muted = muted; $0.handler = onEvent; $0.threadRuns = true }
        Thread.detachNewThread { [weak self, threadEnded] in
            self?.run()
            threadEnded.signal()
        }
    }

    /// Sends one uplink frame to the room (nothing while it is not joined, or muted).
    public func send(_ frame: UplinkFrame) { state.withLock { $0.muted ? nil : $0.publisher }?.send(frame) }

    /// Mutes or unmutes this kiosk's voice in the room; remembered for rejoins. A muted kiosk's
    /// stream goes on carrying silence (the sender fills the time between frames), not nothing:
    /// a VideoRoom `configure` that stops the relay would leave every classmate's input starved,
    /// re-anchored at the unmute and alarmed (1025) in between, as for a kiosk that is gone.
    public func setMuted(_ muted: Bool) { state.withLock { $0.muted = muted } }

    /// Whether this kiosk is (to be) muted in the room.
    public var isMuted: Bool { state.withLock { $0.muted } }
    /// Whether the room is joined now.
    public var isJoined: Bool { state.withLock { $0.ownID != nil } }
    /// The publishing PeerConnection's state; nil while not joined.
    public var connectionState: String? { state.withLock { $0.publisher }?.state }

    /// What one classmate's voice brings now.
    public struct ClassmateReception: Sendable {
        public let participant: JanusRoom.Participant
        /// The engine input it plays into.
        public let input: AudioInput
        /// Its PeerConnection's state ("new" until Janus's offer is answered).
        public let connection: String
        public let receiving: Bool
        /// Its level (dBFS, latest 100 ms).
        public let level: Double?
        /// Seconds pushed into the engine.
        public let seconds: Double
        public let jitterBuffer: ClockTime?
        /// Packets of a new SSRC that failed SRTP authentication.
        public let rejectedPackets: Int
    }

    /// Every classmate mixed now, by id.
    public var classmates: [ClassmateReception] {
        state.withLock { Array($0.classmates.values) }.sorted { $0.participant.id < $1.participant.id }.map { classmate in
            let counters = classmate.connection?.reception.counters
            return ClassmateReception(participant: classmate.participant, input: classmate.input, connection: classmate.connection?.state ?? "new",
                                      receiving: counters?.isReceiving ?? false, level: counters?.level.withLock { $0 }, seconds: counters?.seconds ?? 0,
                                      jitterBuffer: classmate.connection?.jitterBufferDelay, rejectedPackets: classmate.connection?.rejectedPackets ?? 0)
        }
    }

    /// Leaves the room and destroys the session (at most a second for a server that is gone), then
    /// stops publishing and takes every classmate out of the mix.
    public func leave() {
        let taken = state.withLock { state -> (UInt64?, UInt64?, RoomPeerConnection?, [Classmate], (@Sendable (JanusRoom.Event) -> Void)?, Bool, Bool)? in
            guard !state.stopping else { return nil }
            defer {
                state.stopping = true; state.session = nil; state.handle = nil; state.ownID = nil; state.publisher = nil; state.classmates = [:]
            }
            state.poll?.cancel()
            state.joining?.cancel()
            return (state.session, state.handle, state.publisher, Array(state.classmates.values), state.handler, state.threadRuns, Thread.current.name == JanusSFURoom.threadName)
        }
        guard let (session, handle, publisher, classmates, handler, threadRuns, onItsThread) = taken else { return }
        wake.signal()
        // The classmates go first: the farewell ends their streams at the server, and an input left
        // waiting for one would raise 1025 while the server takes its time.
        for classmate in classmates { drop(classmate, saying: handler) }
        publisher?.stop()
        if let session { api.farewell(session: session, handle: handle, within: 1) }
        if threadRuns, !onItsThread, threadEnded.wait(timeout: .now() + .seconds(2)) == .timedOut {
            logger.warning("room: the room's thread did not end within 2 s of leaving \(address)")
        }
        handler?(.left)
    }

    static let threadName = "classroom-audio.sfu-room"

    // MARK: What the room's thread needs (`JanusRoomKeeper`)

    var isStopping: Bool { state.withLock { $0.stopping } }

    func nextPoll() -> (session: UInt64, cancellation: HTTPCancellation)? {
        state.withLock { state in
            guard let session = state.session else { return nil }
            let cancellation = HTTPCancellation()
            state.poll = cancellation
            return (session, cancellation)
        }
    }

    func nextAttempt() -> Int { state.withLock { state in defer { state.attempt += 1 }; return state.attempt } }

    func refused(_ failure: JanusProtocol.Failure) { state.withLock { $0.handler }?(.refused(JanusSFURoom.advice(for: failure, address: address))) }

    // MARK: The room's thread

    private func run() {
        Thread.current.name = JanusSFURoom.threadName
        keepJoined()
    }

    /// The server is gone, dropped us, or the publishing PeerConnection failed: stop publishing, take
    /// every classmate out, forget the session (told goodbye), say so; `run` rejoins. With a
    /// `session`, only while that session is still the joined one.
    func lost(session: UInt64?, because reason: String) {
        let taken = state.withLock { state -> (UInt64?, UInt64?, RoomPeerConnection?, [Classmate], (@Sendable (JanusRoom.Event) -> Void)?, Int)? in
            guard session == nil || state.session == session, !state.stopping else { return nil }
            if let joinedAt = state.joinedAt, ContinuousClock.now - joinedAt >= JanusRoom.settled { state.attempt = 0 }
            state.poll?.cancel()
            defer {
                state.joinedAt = nil; state.session = nil; state.handle = nil; state.ownID = nil; state.privateID = nil; state.publisher = nil
                state.classmates = [:]; state.departed = []; state.poll = nil
            }
            return (state.session, state.handle, state.publisher, Array(state.classmates.values), state.handler, state.attempt)
        }
        guard let (oldSession, handle, publisher, classmates, handler, attempt) = taken else { return }
        publisher?.stop()
        for classmate in classmates { drop(classmate, saying: handler) }
        if let oldSession { requests.async { [api] in api.farewell(session: oldSession, handle: handle, within: 1) } }
        logger.warning("room lost: \(reason)")
        handler?(.lost(reason: reason, retryIn: JanusRoom.backoff[min(attempt, JanusRoom.backoff.count - 1)]))
    }
}
