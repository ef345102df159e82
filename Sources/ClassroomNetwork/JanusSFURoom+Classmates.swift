import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging

/// Who this kiosk mixes: a classmate is subscribed to when they publish audio, answered when Janus
/// offers their stream, and taken out when they leave or unpublish. Every change to the classmates
/// runs on the `subscriptions` queue, in the order the poll brought it, off the room's thread.
extension JanusSFURoom {
    /// How long a classmate's audio may take after the answer before its input raises 1025.
    static let audioGrace = ClockTime.seconds(2)

    /// Applies what the poll brought for the joined `session`.
    func apply(_ event: JanusProtocol.Event, session: UInt64) {
        switch event {
        case .removed(let why, let sender):
            // Janus hangs up a subscription whose feed ended: that classmate is out (one already out, none);
            // the publisher's hang-up, or the room's end, is the room's.
            if let sender, let id = classmate(handle: sender) {
                logger.info("room: a classmate's subscription ended: \(why)")
                unsubscribe(id, session: session)
            } else if sender == nil || sender == state.withLock({ $0.handle }) {
                lost(session: session, because: why)
            }
        case .videoRoom(let event, let sender, _):
            switch event {
            case .publishers(let list):
                welcome(list, session: session)
            case .unpublished(let id), .leaving(let id):
                state.withLock { state in
                    // Only those mixed, and a bounded memory of them: a server naming endless ids grows nothing.
                    guard state.session == session, state.classmates[id] != nil else { return }
                    if state.departed.count >= JanusSFURoom.maxClassmates * 4 { state.departed.removeAll() }
                    state.departed.insert(id)
                }
                subscriptions.async { self.unsubscribe(id, session: session) }
            case .offer(let sdp):
                guard let sender, let id = classmate(handle: sender) else { return }
                subscriptions.async { self.answer(sdp, classmate: id, session: session) }
            case .talking(let id, let talking):
                let said = state.withLock { state in state.classmates[id].map { ($0.participant, state.handler) } }
                if let (participant, handler) = said { handler?(.talking(participant, talking)) }
            case .failed(let failure):
                logger.warning("room: a request was refused: \(failure)")
                if let sender, let id = classmate(handle: sender) { subscriptions.async { self.unsubscribe(id, session: session) } }
            case .joined, .answer, .other:
                break
            }
        case .webRTCUp:
            logger.info("room: a PeerConnection with Janus is up")
        default:
            break
        }
    }

    /// Subscribes to every publisher of audio in `publishers` that is not this kiosk nor mixed already.
    func welcome(_ publishers: [JanusProtocol.Publisher], session: UInt64) {
        for publisher in publishers where publisher.hasAudio {
            subscriptions.async { self.subscribe(to: publisher, session: session) }
        }
    }

    /// The classmate whose subscriber handle is `handle`.
    private func classmate(handle: UInt64) -> UInt64? {
        state.withLock { state in state.classmates.first { $0.value.handle == handle }?.key }
    }

    /// A classmate's own input (`rtc-room-<display>`, or `rtc-room-<id>` when the display is
    /// taken or has nothing an input id can hold), then a subscriber handle and its join; Janus's
    /// offer comes on the poll. On the `subscriptions` queue.
    private func subscribe(to publisher: JanusProtocol.Publisher, session: UInt64) {
        let participant = JanusRoom.Participant(id: publisher.id, display: publisher.display, muted: false)
        let admitted = state.withLock { state -> (taken: Set<String>, privateID: UInt64?)? in
            guard state.session == session, publisher.id != state.ownID, state.classmates[publisher.id] == nil else { return nil }
            guard state.classmates.count < JanusSFURoom.maxClassmates else {
                state.ignored += 1
                if !state.crowdingSaid {
                    state.crowdingSaid = true
                    let (handler, ignored) = (state.handler, state.ignored)
                    DispatchQueue.global().async { handler?(.crowded(ignored: ignored)) }
                }
                return nil
            }
            return (Set(state.classmates.values.map(\.input.id)), state.privateID)
        }
        guard let admitted else { return }
        let input: AudioInput
        do {
            input = try engine.addRTCInput(id: JanusSFURoom.inputID(for: participant, besides: admitted.taken), format: PeerFeed.format)
        } catch {
            logger.error("room: \(participant.display ?? "classmate \(publisher.id)") cannot be mixed: \(error)")
            return
        }
        let handler = state.withLock { state -> (@Sendable (JanusRoom.Event) -> Void)?? in
            guard state.session == session else { return nil }
            state.classmates[publisher.id] = Classmate(participant: participant, input: input)
            return .some(state.handler)
        }
        guard let handler else { try? engine.removeInput(id: input.id); return }
        handler?(.classmateJoined(participant, input: input.id))
        do {
            let handle = try api.attach(session: session, plugin: JanusProtocol.videoRoomPlugin)
            let kept = state.withLock { state -> Bool in
                guard state.session == session, state.classmates[publisher.id] != nil else { return false }
                state.classmates[publisher.id]?.handle = handle
                return true
            }
            guard kept else { requests.async { [api] in try? api.detach(session: session, handle: handle) }; return }
            _ = try api.subscribe(session: session, handle: handle, room: address.room, feed: publisher.id, privateID: admitted.privateID, pin: address.pin?.value)
        } catch {
            logger.warning("room: \(participant.display ?? "classmate \(publisher.id)")'s voice cannot be subscribed to: \(error)")
            unsubscribe(publisher.id, session: session)
        }
    }

    /// Answers Janus's offer of a classmate's stream with a new receive-only PeerConnection, and
    /// starts the subscription. On the `subscriptions` queue.
    private func answer(_ offer: String, classmate id: UInt64, session: UInt64) {
        guard let classmate = state.withLock({ $0.session == session ? $0.classmates[id] : nil }), let handle = classmate.handle else { return }
        // A second offer (the publisher changed its streams) starts over on a subscription of its own.
        guard classmate.connection == nil else {
            resubscribe(id, session: session, because: "Janus renegotiated the stream")
            return
        }
        let what = "\(classmate.participant.display ?? "classmate \(id)")'s voice"
        do {
            let connection = try ClassmateConnection(input: classmate.input, jitterBuffer: jitterBuffer, what: what, logger: logger, onState: { [weak self] nick in
                guard nick == "failed", let self else { return }
                subscriptions.async { self.resubscribe(id, session: session, because: "its WebRTC connection failed (ICE or DTLS)") }
            }, onImpostor: { [weak self] why in
                guard let self else { return }
                logger.error("room: \(why)")
                subscriptions.async { self.unsubscribe(id, session: session) }
            }, onClosed: { [weak self] in
                // Janus ends a subscription whose feed ended: out of the mix now, not when the poll says why.
                self?.unsubscribe(id, session: session)
            })
            let kept = state.withLock { state -> Bool in
                guard state.session == session, state.classmates[id]?.handle == handle else { return false }
                state.classmates[id]?.connection = connection
                return true
            }
            guard kept else { connection.stop(); return }
            let answer = try connection.answer(offer: offer)
            try api.start(session: session, handle: handle, answer: answer)
            // Nothing of the classmate's voice within the grace raises 1025, as a feed that stopped does.
            classmate.input.arrivals.expect(within: JanusSFURoom.audioGrace)
            logger.info("room: subscribed to \(what)", metadata: ["input": "\(classmate.input.id)"])
        } catch {
            logger.warning("room: \(what) cannot be received: \(error)")
            unsubscribe(id, session: session)
        }
    }

    /// Takes classmate `id` out of the mix and ends its subscription at the server. On the `subscriptions` queue.
    func unsubscribe(_ id: UInt64, session: UInt64) {
        let taken = state.withLock { state -> (Classmate, (@Sendable (JanusRoom.Event) -> Void)?)? in
            guard state.session == session, let classmate = state.classmates.removeValue(forKey: id) else { return nil }
            return (classmate, state.handler)
        }
        guard let (classmate, handler) = taken else { return }
        drop(classmate, saying: handler)
        if let handle = classmate.handle { requests.async { [api] in try? api.detach(session: session, handle: handle) } }
    }

    /// A classmate's subscription failed: a new one, a second later, unless they left or unpublished meanwhile.
    private func resubscribe(_ id: UInt64, session: UInt64, because why: String) {
        guard let participant = state.withLock({ $0.classmates[id]?.participant }) else { return }
        logger.warning("room: \(participant.display ?? "classmate \(id)")'s voice is subscribed to again: \(why)")
        unsubscribe(id, session: session)
        subscriptions.asyncAfter(deadline: .now() + .seconds(1)) {
            guard !self.state.withLock({ $0.departed.contains(id) }) else { return }
            self.subscribe(to: JanusProtocol.Publisher(id: id, display: participant.display, hasAudio: true), session: session)
        }
    }

    /// Stops a classmate's connection and takes its input out of the mix, saying so.
    func drop(_ classmate: Classmate, saying handler: (@Sendable (JanusRoom.Event) -> Void)?) {
        classmate.connection?.stop()
        try? engine.removeInput(id: classmate.input.id)
        handler?(.classmateLeft(classmate.participant, input: classmate.input.id))
    }

    /// `rtc-room-<display>` with what an input id holds (letters, digits, `-`, `_`, `.`), or
    /// `rtc-room-<id>` when that is empty or `taken`.
    static func inputID(for participant: JanusRoom.Participant, besides taken: Set<String>) -> String {
        let kept = String((participant.display ?? "").map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "-" }.prefix(32))
        let named = "rtc-\(JanusRoom.peerID)-\(kept)"
        return kept.allSatisfy({ $0 == "-" }) || taken.contains(named) ? "rtc-\(JanusRoom.peerID)-\(participant.id)" : named
    }
}
