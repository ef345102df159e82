import ClassroomEngine
import Dispatch
import Foundation
import Logging

/// One join of a VideoRoom room, on the room's thread: the session and publisher handle, the join
/// as a publisher, then the publish with this kiosk's offer and Janus's answer. The classmates
/// already publishing are subscribed to once the join is installed.
extension JanusSFURoom {
    /// How long each step of the join may wait for its event on the poll.
    static let stepTimeout: TimeInterval = 10

    /// create → attach → join (publisher) → `joined` → publish (offer) → answer; every request
    /// cut by `leave()`. A session it leaves behind is told farewell for at most 1 s.
    func attemptJoin() throws(JanusProtocol.Failure) {
        let halt = HTTPCancellation()
        guard state.withLock({ state -> Bool in
            guard !state.stopping else { return false }
            state.joining = halt
            return true
        }) else { throw .local("the room was left") }
        defer { state.withLock { if $0.joining === halt { $0.joining = nil } } }
        let api = self.api.cut(by: halt)
        let session = try api.createSession()
        var publisher: RoomPeerConnection?
        do throws(JanusProtocol.Failure) {
            let handle = try api.attach(session: session, plugin: JanusProtocol.videoRoomPlugin)
            let joining = try api.joinAsPublisher(session: session, handle: handle, room: address.room, display: address.display, pin: address.pin?.value)
            var seen: [JanusProtocol.Event] = []
            guard case .joined(let id, let privateID, let publishers) = try waitFor(joining, session: session, api: api, passing: &seen) else {
                throw .notJanus("the VideoRoom answered the join with something else than 'joined'")
            }
            let made = try publishingConnection(session: session)
            publisher = made
            let offer: String
            do { offer = try made.offer() } catch { throw .local("the WebRTC offer cannot be made: \(error)") }
            let publishing = try api.publish(session: session, handle: handle, offer: offer)
            guard case .answer(let answer) = try waitFor(publishing, session: session, api: api, passing: &seen) else {
                throw .notJanus("the VideoRoom answered the publish without an SDP answer")
            }
            do { try made.accept(answer: answer) } catch { throw .notJanus("the room's answer cannot be taken: \(error)") }
            try install(session: session, handle: handle, id: id, privateID: privateID, publisher: made, publishers: publishers)
            logger.info("room joined", metadata: ["room": "\(address)", "id": "\(id)", "mode": "sfu", "publishers": "\(publishers.count)"])
            welcome(publishers, session: session)
            // What came while the join was under way (a classmate who published or left meanwhile) comes after who was there.
            for event in seen { apply(event, session: session) }
        } catch {
            publisher?.stop()
            self.api.farewell(session: session, handle: nil, within: 1)
            throw error
        }
    }

    /// Polls until the VideoRoom's event for `transaction` comes (or its failure), within `stepTimeout`;
    /// other events are kept in `seen` to be applied once joined.
    private func waitFor(_ transaction: String, session: UInt64, api: JanusProtocol,
                       passing seen: inout [JanusProtocol.Event]) throws(JanusProtocol.Failure) -> JanusProtocol.VideoRoomEvent {
        let deadline = Date().addingTimeInterval(JanusSFURoom.stepTimeout)
        while Date() < deadline, !state.withLock({ $0.stopping }) {
            let started = ContinuousClock.now
            let events: [JanusProtocol.Event]
            do {
                events = try api.poll(session: session, timeout: deadline.timeIntervalSinceNow)
            } catch .unreachable where Date() >= deadline {
                break
            }
            if events.isEmpty { pace(since: started) }
            // One poll brings up to maxev events: what comes after ours in it (a classmate who
            // published meanwhile) is kept like what came before.
            var answer: JanusProtocol.VideoRoomEvent?
            for event in events {
                switch event {
                case .videoRoom(.failed(let failure), _, let ours) where ours == transaction && answer == nil:
                    throw failure
                case .videoRoom(let reply, _, let ours) where ours == transaction && answer == nil:
                    answer = reply
                default:
                    seen.append(event)
                }
            }
            if let answer { return answer }
        }
        throw .unreachable("no answer from the VideoRoom within \(Int(JanusSFURoom.stepTimeout)) s")
    }

    /// The publishing PeerConnection: Opus in `packetTime` packets with FEC and audio levels (the
    /// room says who talks from them); it receives nothing. Its failure (ICE or DTLS) loses the
    /// room, which rejoins.
    private func publishingConnection(session: UInt64) throws(JanusProtocol.Failure) -> RoomPeerConnection {
        let current: @Sendable () -> (@Sendable (JanusRoom.Event) -> Void)? = { [weak self] in
            self?.state.withLock { $0.session == nil || $0.session == session ? $0.handler : nil }
        }
        do {
            return try RoomPeerConnection(input: nil, jitterBuffer: jitterBuffer, packetTime: JanusSFURoom.packetTime, audioLevels: true, logger: logger, onState: { [weak self] nick in
                guard let self else { return }
                current()?(.connection(nick))
                guard nick == "failed" else { return }
                // Off webrtcbin's thread: the loss stops this connection's pipeline.
                DispatchQueue.global().async {
                    self.lost(session: session, because: "the WebRTC connection failed (ICE or DTLS): no path to \(self.address.host) for this kiosk's voice, or Janus dropped it")
                }
            }, onJitterBuffer: { _ in }, onImpostor: { [weak self] why in
                self?.logger.error("room: \(why)")
                self?.lost(session: session, because: why)
            }, onClosed: { [weak self] in
                self?.lost(session: session, because: "Janus closed the WebRTC connection (DTLS)")
            })
        } catch {
            throw .local("the WebRTC connection cannot be made (is gstreamer1.0-nice installed?): \(error)")
        }
    }

    /// Makes the join the room's: its session, handle, ids and publisher (unless `leave()` came first).
    private func install(session: UInt64, handle: UInt64, id: UInt64, privateID: UInt64?, publisher: RoomPeerConnection,
                         publishers: [JanusProtocol.Publisher]) throws(JanusProtocol.Failure) {
        let installed = state.withLock { state -> (@Sendable (JanusRoom.Event) -> Void)?? in
            guard !state.stopping else { return nil }
            state.session = session; state.handle = handle; state.ownID = id; state.privateID = privateID; state.publisher = publisher
            state.joinedAt = .now; state.ignored = 0; state.crowdingSaid = false
            return .some(state.handler)
        }
        guard let handler = installed else { throw .local("the room was left") }
        handler?(.joined(id: id, participants: publishers.map { JanusRoom.Participant(id: $0.id, display: $0.display, muted: false) }))
        if let why = publisher.peerRefused { lost(session: session, because: why) }
    }
}
