import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging

/// One join of the room, on the room's thread: the session and handle, the join with its media
/// (plain RTP's address, or a PeerConnection's offer), Janus's `joined`, and the sender or
/// connection installed for it.
extension JanusRoom {
    /// create → attach → join → wait for `joined`; then the uplink sends from the receiver's
    /// socket (plain RTP), or the PeerConnection whose offer went with the join takes Janus's answer.
    ///
    /// Every request of the join is cut by `leave()` (`State.joining`); a session it leaves behind is
    /// told farewell for at most 1 s, so the room's thread ends promptly even on a server that hangs.
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
        let handle: UInt64
        let transaction: String
        let muted = state.withLock { $0.muted }
        var connection: RoomPeerConnection?
        do throws(JanusProtocol.Failure) {
            handle = try api.attachAudioBridge(session: session)
            let media: JanusProtocol.JoinMedia
            if let plain {
                media = .rtp(address: plain.address, port: plain.port, payloadType: JanusRoom.payloadType)
            } else {
                let made = try peerConnection(session: session)
                connection = made
                do { media = .offer(try made.offer()) } catch { throw .local("the WebRTC offer cannot be made: \(error)") }
            }
            transaction = try api.join(session: session, handle: handle, room: address.room, display: address.display, pin: address.pin?.value,
                                       muted: muted, prebuffer: address.prebuffer, media: media)
        } catch {
            connection?.stop()
            self.api.farewell(session: session, handle: nil, within: 1)
            throw error
        }
        let deadline = Date().addingTimeInterval(10)
        polling: while Date() < deadline, !state.withLock({ $0.stopping }) {
            // A poll the server holds is bounded by the join's deadline too.
            let events: [JanusProtocol.Event]
            let started = ContinuousClock.now
            do {
                events = try api.poll(session: session, timeout: deadline.timeIntervalSinceNow)
            } catch .unreachable where Date() >= deadline {
                break polling
            }
            if events.isEmpty { pace(since: started) }
            for (index, event) in events.enumerated() {
                switch event {
                case .joined(let ours, let id, let participants, let media) where ours == transaction:
                    try joined(session: session, handle: handle, id: id, participants: participants, media: media, connection: connection, muted: muted)
                    // One poll brings up to maxev events: those after ours are the joined room's.
                    for later in events[(index + 1)...] { apply(later, session: session) }
                    return
                case .failed(let failed, let failure) where failed == transaction:
                    connection?.stop()
                    self.api.farewell(session: session, handle: nil, within: 1)
                    throw failure
                case .joined(let other, let id, _, _):
                    // Someone else's join (or a server mixing up transactions): not a reason to send our RTP anywhere.
                    logger.warning("room: a 'joined' for another transaction (\(other ?? "none"), id \(id)) is not ours; still waiting for ours")
                default:
                    note(event)
                }
            }
        }
        connection?.stop()
        self.api.farewell(session: session, handle: nil, within: 1)
        throw .unreachable("no answer to 'join' within 10 s")
    }

    /// A PeerConnection for this join; its failure (ICE or DTLS) loses the room, which rejoins.
    private func peerConnection(session: UInt64) throws(JanusProtocol.Failure) -> RoomPeerConnection {
        do {
            // Said while this join's session is the room's (or is being joined); a closed old one is not news.
            let current: @Sendable () -> (@Sendable (Event) -> Void)? = { [weak self] in
                self?.state.withLock { $0.session == nil || $0.session == session ? $0.handler : nil }
            }
            return try RoomPeerConnection(input: input, jitterBuffer: jitterBuffer, logger: logger, onState: { [weak self] nick in
                guard let self else { return }
                current()?(.connection(nick))
                guard nick == "failed" else { return }
                // Off webrtcbin's own thread: the loss stops this connection's pipeline, which from inside its
                // notify deadlocked (the room neither said room-lost nor stopped the connection).
                DispatchQueue.global().async {
                    self.lost(session: session, because: "the WebRTC connection failed (ICE or DTLS): no path to \(self.address.host) for the room's audio, or Janus dropped it")
                }
            }, onJitterBuffer: { delay in current()?(.jitterBuffer(delay)) }, onImpostor: { [weak self] why in
                self?.logger.error("room: \(why)")
                self?.lost(session: session, because: why)
            }, onClosed: { [weak self] in
                self?.lost(session: session, because: "Janus closed the WebRTC connection (DTLS)")
            })
        } catch {
            throw .local("the WebRTC connection cannot be made (is gstreamer1.0-nice installed?): \(error)")
        }
    }

    private func joined(session: UInt64, handle: UInt64, id: UInt64, participants: [JanusProtocol.Participant],
                        media: JanusProtocol.JoinedMedia, connection: RoomPeerConnection?, muted: Bool) throws(JanusProtocol.Failure) {
        var sender: UplinkSender?
        let audioAt: String
        do {
            switch (media, plain, connection) {
            case (.rtp(let rtpAddress, let rtpPort), let plain?, _):
                let endpoint = try RTPEndpoint(host: rtpAddress, port: rtpPort, payloadType: JanusRoom.payloadType)
                let made = try UplinkSender(destinations: [.rtp(endpoint)], sendingFrom: plain.feed.rtpReceiver, logger: logger)
                try made.start()
                sender = made
                audioAt = plain.address.contains(":") ? "[\(plain.address)]:\(plain.port)" : "\(plain.address):\(plain.port)"
            case (.answer(let sdp), nil, let connection?):
                try connection.accept(answer: sdp)
                audioAt = "this kiosk's WebRTC connection (ICE \(connection.state))"
            default:
                throw EngineError.badEndpoint(address.description, reason: "Janus answered the join with media of another kind than asked for")
            }
        } catch {
            connection?.stop()
            self.api.farewell(session: session, handle: nil, within: 1)
            throw .notJanus("the room's media cannot be set up: \(error)")
        }
        let list = participants.prefix(JanusRoom.maxParticipants).map { Participant(id: $0.id, display: $0.display, muted: $0.muted) }
        let installed = state.withLock { state -> ((@Sendable (Event) -> Void)?, UplinkSender?, RoomPeerConnection?)? in
            // A join that came back after `leave()`: nothing is installed.
            guard !state.stopping else { return nil }
            defer {
                state.session = session; state.handle = handle; state.ownID = id; state.sender = sender; state.connection = connection
                state.joinedAt = .now; state.serverMuted = muted; state.ignoredParticipants = 0; state.crowdingSaid = false
                state.participants = Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            }
            return (state.handler, state.sender, state.connection)
        }
        guard let (handler, oldSender, oldConnection) = installed else {
            sender?.stop()
            connection?.stop()
            self.api.farewell(session: session, handle: nil, within: 1)
            return
        }
        oldSender?.stop()
        oldConnection?.stop()
        logger.info("room joined", metadata: ["room": "\(address)", "id": "\(id)", "audio": "\(audioAt)"])
        handler?(.joined(id: id, participants: list))
        // A DTLS peer refused before this join was installed was not said as a loss then.
        if let why = connection?.peerRefused {
            lost(session: session, because: why)
            return
        }
        tellServerTheMute()
        JanusRoom.watchForAudio(on: input, at: audioAt, from: address.host, logger: logger) { [weak self] in
            self?.state.withLock { $0.session == session && !$0.stopping ? $0.handler : nil }
        }
    }
}
