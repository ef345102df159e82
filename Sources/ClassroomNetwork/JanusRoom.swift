import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// A kiosk in a Janus AudioBridge room as a plain-RTP participant: the room's mix (everyone but
/// this kiosk) comes in as the RTC input `rtc-room`, and whatever is handed to `send(_:)` — the
/// `SessionController`'s uplink frames — goes up as Opus RTP from the same socket.
///
/// The room keeps itself joined: the long poll keeps the session alive; a server that stops
/// answering is `lost` (the room input goes quiet, so alarm 1025 follows) and the room rejoins
/// with backoff (1, 2, 4 … 30 s) until it is back. Protocol details are in `JanusProtocol`.
public final class JanusRoom: Sendable {
    /// The peer id of the room's mix.
    public static let peerID = "room"
    /// The RTP payload type used both ways.
    static let payloadType = 111
    /// The waits between rejoin attempts; the last repeats.
    static let backoff: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30)]

    /// Where the room is.
    public let address: JanusRoomAddress
    /// The room's mix as an RTC input of the engine.
    public let input: AudioInput
    /// The receiver of the room's mix (figures, level).
    public let feed: PeerFeed

    private struct State: Sendable {
        var session: UInt64?
        var handle: UInt64?
        var ownID: UInt64?
        var sender: UplinkSender?
        var participants: [UInt64: Participant] = [:]
        /// Whether the session wants this kiosk muted.
        var muted = true
        /// What the joined session was last told (at `join` or by `configure`); read only while joined.
        var serverMuted = true
        var stopping = false
        var attempt = 0
        var handler: (@Sendable (Event) -> Void)?
    }

    private let engine: AudioEngine
    private let api: JanusProtocol
    private let localAddress: String
    private let localPort: Int
    private let logger: Logger
    private let state = Mutex(State())
    private let requests = DispatchQueue(label: "classroom-audio.janus-room")
    private let wake = DispatchSemaphore(value: 0)

    /// Prepares the room's input and receiver on a free local UDP port of `localAddress` — by
    /// default the address this machine reaches the Janus host from, which Janus sends the mix
    /// to; nothing is joined yet.
    public init(address: JanusRoomAddress, engine: AudioEngine, localAddress: String? = nil,
                jitterBuffer: JitterBufferSetting = PeerFeed.defaultJitterBuffer, logger: Logger) throws(EngineError) {
        guard let url = address.apiURL else { throw .badEndpoint(address.description, reason: "the host cannot be put in a URL") }
        self.address = address
        self.engine = engine
        self.api = JanusProtocol(url: url, timeout: 5, token: address.token?.value, apiSecret: address.apiSecret?.value)
        let local: String
        if let localAddress { local = localAddress } else { local = try LocalRoute.sourceAddress(toward: address.host, port: address.port) }
        self.localAddress = local
        self.logger = logger
        localPort = try LocalPort.free(.udp, on: local)
        input = try engine.addRTCInput(id: "rtc-\(JanusRoom.peerID)", format: PeerFeed.format)
        do {
            feed = try PeerFeed(source: .rtp(address: local, port: localPort, payloadType: JanusRoom.payloadType), input: input,
                                jitterBuffer: jitterBuffer, logger: logger)
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
        try feed.start { _ in }
        Thread.detachNewThread { [self] in run() }
    }

    /// Sends one uplink frame to the room (nothing while it is not joined).
    public func send(_ frame: UplinkFrame) {
        state.withLock { $0.sender }?.send(frame)
    }

    /// Mutes or unmutes this kiosk in the room (AudioBridge `configure`), so the room's talk
    /// events and the teacher's UI see it; remembered for rejoins.
    public func setMuted(_ muted: Bool) {
        state.withLock { $0.muted = muted }
        tellServerTheMute()
    }

    /// Sends `configure` when the joined session was told otherwise than the session wants now —
    /// also right after a join, since the mute may change while the join is under way.
    private func tellServerTheMute() {
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
    /// Who else is in the room.
    public var participants: [Participant] { state.withLock { Array($0.participants.values) }.sorted { $0.id < $1.id } }

    /// Leaves the room and destroys the session (waiting at most a second for a server that is gone
    /// or hangs), then stops sending and receiving and takes the room's input out of the mix.
    public func leave() {
        let (session, handle, sender, handler, wasStopping) = state.withLock { state in
            defer { state.stopping = true; state.session = nil; state.handle = nil; state.ownID = nil; state.sender = nil }
            return (state.session, state.handle, state.sender, state.handler, state.stopping)
        }
        guard !wasStopping else { return }
        wake.signal()
        if let session { api.farewell(session: session, handle: handle, within: 1) }
        sender?.stop()
        feed.stop()
        try? engine.removeInput(id: input.id)
        handler?(.left)
    }

    // MARK: Joining

    /// create → attach → join → wait for `joined`; then the uplink sends from the receiver's socket.
    private func attemptJoin() throws(JanusProtocol.Failure) {
        let session = try api.createSession()
        let handle: UInt64
        let transaction: String
        let muted = state.withLock { $0.muted }
        do {
            handle = try api.attachAudioBridge(session: session)
            transaction = try api.join(session: session, handle: handle, room: address.room, display: address.display, pin: address.pin?.value,
                                       muted: muted, prebuffer: address.prebuffer, rtpAddress: localAddress, rtpPort: localPort, payloadType: JanusRoom.payloadType)
        } catch {
            try? api.destroy(session: session)
            throw error
        }
        let deadline = Date().addingTimeInterval(10)
        polling: while Date() < deadline, !state.withLock({ $0.stopping }) {
            // A poll the server holds is bounded by the join's deadline too.
            let events: [JanusProtocol.Event]
            do {
                events = try api.poll(session: session, timeout: deadline.timeIntervalSinceNow)
            } catch .unreachable where Date() >= deadline {
                break polling
            }
            for event in events {
                switch event {
                case .joined(let ours, let id, let participants, let rtpAddress, let rtpPort) where ours == transaction:
                    try joined(session: session, handle: handle, id: id, participants: participants, rtpAddress: rtpAddress, rtpPort: rtpPort, muted: muted)
                    return
                case .failed(let failed, let failure) where failed == transaction:
                    try? api.destroy(session: session)
                    throw failure
                case .joined(let other, let id, _, _, _):
                    // Someone else's join (or a server mixing up transactions): not a reason to send our RTP anywhere.
                    logger.warning("room: a 'joined' for another transaction (\(other ?? "none"), id \(id)) is not ours; still waiting for ours")
                default:
                    apply(event)
                }
            }
        }
        try? api.destroy(session: session)
        throw .unreachable("no answer to 'join' within 10 s")
    }

    private func joined(session: UInt64, handle: UInt64, id: UInt64, participants: [JanusProtocol.Participant],
                        rtpAddress: String, rtpPort: Int, muted: Bool) throws(JanusProtocol.Failure) {
        let sender: UplinkSender
        do {
            let endpoint = try RTPEndpoint(host: rtpAddress, port: rtpPort, payloadType: JanusRoom.payloadType)
            sender = try UplinkSender(destinations: [.rtp(endpoint)], sendingFrom: feed.rtpReceiver, logger: logger)
            try sender.start()
        } catch {
            try? api.destroy(session: session)
            throw .notJanus("the room's RTP address \(rtpAddress):\(rtpPort) cannot be sent to: \(error)")
        }
        let list = participants.map { Participant(id: $0.id, display: $0.display, muted: $0.muted) }
        let installed = state.withLock { state -> ((@Sendable (Event) -> Void)?, UplinkSender?)? in
            // A join that came back after `leave()`: nothing is installed.
            guard !state.stopping else { return nil }
            defer {
                state.session = session; state.handle = handle; state.ownID = id; state.sender = sender; state.attempt = 0; state.serverMuted = muted
                state.participants = Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            }
            return (state.handler, state.sender)
        }
        guard let (handler, old) = installed else {
            sender.stop()
            try? api.destroy(session: session)
            return
        }
        old?.stop()
        logger.info("room joined", metadata: ["room": "\(address)", "id": "\(id)", "rtp": "\(rtpAddress):\(rtpPort)"])
        handler?(.joined(id: id, participants: list))
        tellServerTheMute()
        JanusRoom.watchForAudio(on: input, at: localAddress.contains(":") ? "[\(localAddress)]:\(localPort)" : "\(localAddress):\(localPort)", from: address.host, logger: logger) { [weak self] in
            self?.state.withLock { $0.session == session && !$0.stopping ? $0.handler : nil }
        }
    }

    // MARK: The room's thread

    /// Joins; long-polls while joined; rejoins with backoff while not; ends with `leave()` or a
    /// first join refused for good.
    private func run() {
        do {
            try attemptJoin()
        } catch {
            guard !state.withLock({ $0.stopping }) else { return }
            guard error.isTransient else {
                logger.error("room: \(address) refused: \(error)")
                state.withLock { $0.handler }?(.refused(JanusRoom.advice(for: error, address: address)))
                return
            }
            lost(because: "the server \(address.host):\(address.port) cannot be joined now: \(error)")
        }
        while !state.withLock({ $0.stopping }) {
            guard let session = state.withLock({ $0.session }) else {
                let attempt = state.withLock { state -> Int in defer { state.attempt += 1 }; return state.attempt }
                let wait = JanusRoom.backoff[min(attempt, JanusRoom.backoff.count - 1)]
                _ = wake.wait(timeout: .now() + .milliseconds(Int(wait.components.seconds * 1_000)))
                guard !state.withLock({ $0.stopping }) else { return }
                do {
                    try attemptJoin()
                } catch {
                    let next = JanusRoom.backoff[min(attempt + 1, JanusRoom.backoff.count - 1)]
                    logger.warning("room: rejoining \(address) failed: \(error); next attempt in \(next)")
                }
                continue
            }
            do {
                for event in try api.poll(session: session) { apply(event) }
            } catch {
                guard !state.withLock({ $0.stopping }) else { return }
                lost(because: "\(error)")
            }
        }
    }

    private func apply(_ event: JanusProtocol.Event) {
        var events: [Event] = []
        state.withLock { state in
            switch event {
            case .participants(let list):
                for entry in list where entry.id != state.ownID {
                    let participant = Participant(id: entry.id, display: entry.display, muted: entry.muted)
                    if state.participants.updateValue(participant, forKey: entry.id) == nil { events.append(.participantJoined(participant)) }
                }
            case .leaving(let id):
                if let participant = state.participants.removeValue(forKey: id) { events.append(.participantLeft(participant)) }
            case .removed(let why):
                state.session = nil
                events.append(.lost(reason: why, retryIn: JanusRoom.backoff[0]))
            default:
                break
            }
        }
        // A configure the AudioBridge refused comes back here, not to its sender.
        if case .failed(_, let failure) = event { logger.warning("room: a request was refused: \(failure)") }
        let handler = state.withLock { $0.handler }
        for event in events { handler?(event) }
    }

    /// The server is gone (or dropped us): stop sending, forget the session, say so; `run` rejoins.
    private func lost(because reason: String) {
        let (sender, handler, attempt) = state.withLock { state in
            defer { state.session = nil; state.handle = nil; state.ownID = nil; state.sender = nil; state.participants = [:] }
            return (state.sender, state.handler, state.attempt)
        }
        sender?.stop()
        logger.warning("room lost: \(reason)")
        handler?(.lost(reason: reason, retryIn: JanusRoom.backoff[min(attempt, JanusRoom.backoff.count - 1)]))
    }
}
