import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// A kiosk in a Janus AudioBridge room: the room's mix (everyone but this kiosk) comes in as the
/// RTC input `rtc-room`, and whatever is handed to `send(_:)` — the `SessionController`'s uplink
/// frames — goes up as Opus. As a WebRTC participant (`http://…`) both travel in one
/// PeerConnection, DTLS-SRTP (`RoomPeerConnection`, a new one per join); as a plain-RTP participant
/// (`janus://…`) as RTP from one UDP socket, in the clear.
///
/// The room keeps itself joined: the long poll keeps the session alive; a server that stops
/// answering is `lost` (the room input goes quiet, so alarm 1025 follows) and the room rejoins
/// with backoff (1, 2, 4 … 30 s) until it is back. Protocol details are in `JanusProtocol`.
public final class JanusRoom: JanusRoomKeeper {
    /// The peer id of the room's mix.
    public static let peerID = "room"
    /// The RTP payload type used both ways.
    static let payloadType = 111
    /// The waits between rejoin attempts; the last repeats.
    static let backoff: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30)]
    /// A join that lasts this long was a good one: the next loss starts the backoff again. A server
    /// that accepts and at once drops the join is retried ever more slowly instead of every second.
    static let settled = Duration.seconds(30)
    /// The least time between the starts of two polls that brought nothing: Janus holds an empty
    /// long poll for 30 s, so a server answering `[]` at once is paced instead of spun on.
    static let emptyPollSpacing = Duration.seconds(1)
    /// The most participants tracked: a class, with room to spare. A server (or anyone on a plain
    /// HTTP path) announcing new ones on every poll grew a kiosk by 200 MB in 30 s.
    public static let maxParticipants = 200

    /// Where the room is.
    public let address: JanusRoomAddress
    /// The room's mix as an RTC input of the engine.
    public let input: AudioInput
    /// Plain RTP: the receiver of the room's mix, on the UDP socket the uplink is sent from, which Janus is told in the join.
    let plain: (feed: PeerFeed, address: String, port: Int)?
    /// How the room's jitter buffer holds its packets (WebRTC: the PeerConnection's; plain RTP: the feed's).
    let jitterBuffer: JitterBufferSetting

    struct State: Sendable {
        var session: UInt64?
        var handle: UInt64?
        var ownID: UInt64?
        var sender: UplinkSender?
        /// WebRTC: the joined PeerConnection (sends and receives).
        var connection: RoomPeerConnection?
        var participants: [UInt64: Participant] = [:]
        /// Participants passed over since the join because `maxParticipants` were tracked, and whether that was said.
        var ignoredParticipants = 0
        var crowdingSaid = false
        /// Whether the session wants this kiosk muted.
        var muted = true
        /// What the joined session was last told (at `join` or by `configure`); read only while joined.
        var serverMuted = true
        var stopping = false
        /// Cuts the joined session's long poll: a lost or left session's poll is not waited out.
        var poll: HTTPCancellation?
        /// Cuts the join under way (`attemptJoin`): a leave does not wait for a server that holds it.
        var joining: HTTPCancellation?
        /// Whether the room's thread runs (`join` started it, and it has not returned).
        var threadRuns = false
        /// Rejoins since the room last stayed joined for `settled`: the backoff's step.
        var attempt = 0
        /// When the joined session was installed: a loss before `settled` keeps the backoff climbing.
        var joinedAt: ContinuousClock.Instant?
        var handler: (@Sendable (Event) -> Void)?
    }

    private let engine: AudioEngine
    let api: JanusProtocol
    let logger: Logger
    let state = Mutex(State())
    private let requests = DispatchQueue(label: "classroom-audio.janus-room")
    let wake = DispatchSemaphore(value: 0)
    /// Signalled when the room's thread returns.
    private let threadEnded = DispatchSemaphore(value: 0)
    /// Marks the room's own thread, where `leave()` (from an event handler) must not wait for it.
    private static let threadKey = "classroom-audio.janus-room"

    /// Prepares the room's input. Plain RTP: also its receiver, on a free local UDP port of
    /// `localAddress` — by default the address this machine reaches the Janus host from, which
    /// Janus sends the mix to. Nothing is joined yet.
    public init(address: JanusRoomAddress, engine: AudioEngine, localAddress: String? = nil,
                jitterBuffer: JitterBufferSetting = PeerFeed.defaultJitterBuffer, logger: Logger) throws(EngineError) {
        guard let url = address.apiURL else { throw .badEndpoint(address.description, reason: "the host cannot be put in a URL") }
        self.address = address
        self.engine = engine
        self.api = JanusProtocol(url: url, timeout: 5, token: address.token?.value, apiSecret: address.apiSecret?.value, trust: address.trust)
        self.logger = logger
        self.jitterBuffer = jitterBuffer
        input = try engine.addRTCInput(id: "rtc-\(JanusRoom.peerID)", format: PeerFeed.format)
        guard address.media == .plainRTP else { plain = nil; return }
        do {
            let local: String
            if let localAddress { local = localAddress } else { local = try LocalRoute.sourceAddress(toward: address.host, port: address.port) }
            let port = try LocalPort.free(.udp, on: local)
            // AudioBridge adds no FEC to the mix unless the join sets expected_loss (default 0): decoding it would only hold a packet.
            let feed = try PeerFeed(source: .rtp(address: local, port: port, payloadType: JanusRoom.payloadType), input: input,
                                    jitterBuffer: jitterBuffer, forwardErrorCorrection: false, logger: logger)
            plain = (feed, local, port)
        } catch {
            try? engine.removeInput(id: input.id)
            throw error
        }
    }


    /// Starts receiving and joins the room, muted or not, on the room's own thread: the caller goes
    /// on at once (a Janus that never answers the join held a class's start for 25-41 s). What will
    /// not fix itself — not a Janus server, no such room, a wrong pin, a room without plain-RTP
    /// participants — comes as `refused`; a server that does not answer or fails is `lost` and
    /// retried. Throws only when the receiver cannot start. `onEvent` runs on the room's threads.
    public func join(muted: Bool, onEvent: @escaping @Sendable (Event) -> Void) throws(EngineError) {
        state.withLock { $0.muted = muted; $0.handler = onEvent }
        try plain?.feed.start { [weak self] event in
            if case .jitterBuffer(let delay) = event { self?.state.withLock { $0.handler }?(.jitterBuffer(delay)) }
        }
        state.withLock { $0.threadRuns = true }
        // The thread holds the room only while `run` runs: `leave()` returns on the signal, and the
        // room must be free by then (a strong capture let go of it only after, when the block was freed).
        Thread.detachNewThread { [weak self, threadEnded] in
            self?.runOnItsThread()
            threadEnded.signal()
        }
    }

    /// Sends one uplink frame to the room (nothing while it is not joined).
    public func send(_ frame: UplinkFrame) {
        let (sender, connection) = state.withLock { ($0.sender, $0.connection) }
        sender?.send(frame)
        connection?.send(frame)
    }

    /// Mutes or unmutes this kiosk in the room (AudioBridge `configure`), so the room's talk
    /// events and the teacher's UI see it; remembered for rejoins.
    public func setMuted(_ muted: Bool) {
        state.withLock { $0.muted = muted }
        tellServerTheMute()
    }

    /// Sends `configure` when the joined session was told otherwise than the session wants now —
    /// also right after a join, since the mute may change while the join is under way.
    func tellServerTheMute() {
        state.withLock { state in
            guard let session = state.session, let handle = state.handle, state.serverMuted != state.muted else { return }
            state.serverMuted = state.muted
            // Queued under the lock, so requests go out in the order they were decided: the last
            // one sent is the state wanted last.
            requests.async { [api, logger, muted = state.muted] in
                do { try api.configure(session: session, handle: handle, muted: muted) } catch {
                    logger.warning("room: could not \(muted ? "mute" : "unmute") this kiosk: \(error)")
                }
            }
        }
    }

    /// Whether this kiosk is (to be) muted in the room.
    public var isMuted: Bool { state.withLock { $0.muted } }
    /// Whether the room is joined now.
    public var isJoined: Bool { state.withLock { $0.ownID != nil } }
    /// WebRTC: the joined PeerConnection's state ("connecting", "connected" …); nil for plain RTP or while not joined.
    public var connectionState: String? { state.withLock { $0.connection }?.state }
    /// Who else is in the room.
    public var participants: [Participant] { state.withLock { Array($0.participants.values) }.sorted { $0.id < $1.id } }

    /// What the room's mix brought: whether it arrives now, its level (dBFS, latest 100 ms), the
    /// seconds pushed into the engine (this join's, for WebRTC), and the jitter buffer's delay.
    public var reception: (receiving: Bool, level: Double?, seconds: Double, jitterBuffer: ClockTime?) {
        if let feed = plain?.feed { return (feed.isReceiving, feed.level, feed.secondsPushed, feed.jitterBufferDelay) }
        guard let connection = state.withLock({ $0.connection }) else { return (false, nil, 0, nil) }
        let counters = connection.counters
        return (counters.isReceiving, counters.level.withLock { $0 }, counters.seconds, connection.jitterBufferDelay)
    }
    /// Packets the room's media path dropped: over WebRTC those of a new SSRC that failed SRTP
    /// authentication (this join's), over plain RTP those not of the room's stream.
    public var rejectedPackets: Int {
        if let feed = plain?.feed { return feed.rejectedPackets }
        return state.withLock { $0.connection }?.rejectedPackets ?? 0
    }
    /// Leaves the room and destroys the session (waiting at most a second for a server that is gone
    /// or hangs), then stops sending and receiving and takes the room's input out of the mix.
    public func leave() {
        let (session, handle, sender, connection, handler, poll, joining, threadRuns, wasStopping) = state.withLock { state in
            defer {
                state.stopping = true; state.session = nil; state.handle = nil; state.ownID = nil; state.sender = nil; state.connection = nil
                state.poll = nil; state.joining = nil
            }
            return (state.session, state.handle, state.sender, state.connection, state.handler, state.poll, state.joining, state.threadRuns, state.stopping)
        }
        guard !wasStopping else { return }
        wake.signal()
        poll?.cancel()
        joining?.cancel()
        if let session { api.farewell(session: session, handle: handle, within: 1) }
        sender?.stop()
        connection?.stop()
        plain?.feed.stop()
        try? engine.removeInput(id: input.id)
        // Its requests are cut and its waits woken: it returns within its farewell's 1 s, and holds the engine no longer.
        let onItsThread = Thread.current.threadDictionary[JanusRoom.threadKey] as? ObjectIdentifier == ObjectIdentifier(self)
        if threadRuns, !onItsThread, threadEnded.wait(timeout: .now() + .seconds(2)) == .timedOut {
            logger.warning("room: the room's thread did not end within 2 s of leaving \(address)")
        }
        handler?(.left)
    }

    // MARK: The room's thread

    /// `run`, with the thread marked as the room's own.
    private func runOnItsThread() {
        Thread.current.threadDictionary[JanusRoom.threadKey] = ObjectIdentifier(self)
        keepJoined()
    }

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

    func refused(_ failure: JanusProtocol.Failure) { state.withLock { $0.handler }?(.refused(JanusRoom.advice(for: failure, address: address))) }

    func apply(_ event: JanusProtocol.Event, session: UInt64) {
        if case .removed(let why, _) = event {
            // Kicked, the room destroyed, or Janus hung up our PeerConnection: the session is left behind, the room rejoins.
            lost(session: session, because: why)
            return
        }
        note(event)
    }

    /// What an event says about who is in the room; also while the join waits for its `joined`.
    func note(_ event: JanusProtocol.Event) {
        if case .webRTCUp = event { logger.info("room: Janus's end of the WebRTC connection is up") }
        var events: [Event] = []
        state.withLock { state in
            switch event {
            case .participants(let list):
                for entry in list where entry.id != state.ownID {
                    let participant = Participant(id: entry.id, display: entry.display, muted: entry.muted)
                    guard state.participants[entry.id] != nil || state.participants.count < JanusRoom.maxParticipants else {
                        state.ignoredParticipants += 1
                        continue
                    }
                    if state.participants.updateValue(participant, forKey: entry.id) == nil { events.append(.participantJoined(participant)) }
                }
                if state.ignoredParticipants > 0, !state.crowdingSaid {
                    state.crowdingSaid = true
                    events.append(.crowded(ignored: state.ignoredParticipants))
                }
            case .leaving(let id):
                if let participant = state.participants.removeValue(forKey: id) { events.append(.participantLeft(participant)) }
            default:
                break
            }
        }
        // A configure the AudioBridge refused comes back here, not to its sender.
        if case .failed(_, let failure) = event { logger.warning("room: a request was refused: \(failure)") }
        let handler = state.withLock { $0.handler }
        for event in events { handler?(event) }
    }

    /// The server is gone, dropped us, or the PeerConnection failed: stop sending, forget the
    /// session (told goodbye, in case the server still holds it), say so; `run` rejoins. With a
    /// `session`, only while that session is still the joined one: one loss is said once.
    func lost(session: UInt64?, because reason: String) {
        let lost = state.withLock { state -> (UInt64?, UInt64?, UplinkSender?, RoomPeerConnection?, (@Sendable (Event) -> Void)?, HTTPCancellation?, Int)? in
            guard session == nil || state.session == session, !state.stopping else { return nil }
            if let joinedAt = state.joinedAt, ContinuousClock.now - joinedAt >= JanusRoom.settled { state.attempt = 0 }
            defer { state.joinedAt = nil; state.session = nil; state.handle = nil; state.ownID = nil; state.sender = nil; state.connection = nil; state.participants = [:]; state.poll = nil }
            return (state.session, state.handle, state.sender, state.connection, state.handler, state.poll, state.attempt)
        }
        guard let (oldSession, handle, sender, connection, handler, poll, attempt) = lost else { return }
        // The room's thread may be in this session's long poll, which Janus answers only after 30 s
        // once the farewell destroyed the session: cut, so the rejoin does not wait for it.
        poll?.cancel()
        sender?.stop()
        connection?.stop()
        if let oldSession { requests.async { [api] in api.farewell(session: oldSession, handle: handle, within: 1) } }
        logger.warning("room lost: \(reason)")
        handler?(.lost(reason: reason, retryIn: JanusRoom.backoff[min(attempt, JanusRoom.backoff.count - 1)]))
    }
}
