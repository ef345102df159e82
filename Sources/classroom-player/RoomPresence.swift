import ClassroomAudio
import ClassroomEngine
import ClassroomNetwork
import Foundation
import Synchronization

/// The kiosk in a conferencing room (`--room http://…/janus?room=N[&mode=sfu]` or `janus://…`): joins it, says what happens to it as
/// events, keeps this kiosk muted in the room whenever its microphone is off or the session is
/// interrupted, and leaves it on every stop.
final class RoomPresence: Sendable {
    let room: any JanusClassRoom
    private let events: EventLog
    private let controller: SessionController
    /// Held while the mute is decided and handed over, so a decision made before the microphone
    /// connected cannot land after the one made since (two kiosks' CI runs each lost one voice so).
    private let following = Mutex(())

    init(room: any JanusClassRoom, controller: SessionController, events: EventLog) {
        self.room = room
        self.controller = controller
        self.events = events
    }

    /// Whether the session wants this kiosk muted in the room now.
    var shouldBeMuted: Bool { !controller.isMicrophoneConnected || controller.session.resolvedState.isInterrupted }

    /// Joins beside the class (the call returns at once); `refused` gets the error for a room that
    /// cannot be joined as configured (exit 1). Throws when the room's receiver cannot start.
    func join(refused: @escaping @Sendable (PlayerError) -> Void) throws(PlayerError) {
        // Taken, so a kiosk set up that way still joins, but said once: ps, the shell history and the unit file show it.
        if room.address.pinOnCommandLine {
            events.emit("room-warning", [("message", .string("the room's pin is visible on the command line (ps, the shell history, the unit file): "
                + "put it in a file only this user can read (chmod 600) and give pin-file=FILE instead of pin="))])
        }
        switch room.address.media {
        case .plainRTP:
            events.emit("room-warning", [("message", .string("the room's audio travels as plain RTP, unencrypted: anyone on the path can hear the class, and one who spoofs this kiosk's address "
                + "can speak into the room; join over WebRTC (--room https://\(room.address.host)/janus?room=\(room.address.room), or http:// on a network you trust) where the server allows it"))])
        case .webRTC where room.address.trust == nil:
            events.emit("room-warning", [("message", .string("the room is joined over plain HTTP: the audio is encrypted (DTLS-SRTP), but the join, its token and pin cross the network "
                + "in the clear; use this only on a network you trust, or give https://"))])
        case .webRTC:
            break
        }
        do {
            try room.join(muted: shouldBeMuted) { [events, address = room.address] event in
                if case .refused(let reason) = event {
                    refused(.cannotUse(role: "room", what: address.description, reason: reason))
                }
                RoomPresence.emit(event, to: events, mode: address.mode)
            }
        } catch {
            throw .cannotUse(role: "room", what: room.address.description, reason: PeerArgument.reason(error))
        }
    }

    /// Follows the session: call after every session event and microphone change.
    func followSession() { following.withLock { _ in room.setMuted(shouldBeMuted) } }

    /// Leaves the room (bounded, about 2 s when the server is gone).
    func leave() { room.leave() }

    /// The room for `status`: what both kinds say, then the mix's reception (AudioBridge) or each classmate's (VideoRoom).
    var status: JSON {
        let common: [(String, JSON)] = [
            ("address", .string(room.address.description)), ("display", .string(room.address.display)), ("mode", .string(room.address.mode.rawValue)),
            ("media", .string(room.address.media == .webRTC ? "webrtc" : "plain-rtp")), ("encrypted", .bool(room.address.media == .webRTC)),
            ("connection", .maybe(room.connectionState)), ("joined", .bool(room.isJoined)), ("muted", .bool(room.isMuted)),
        ]
        if let sfu = room as? JanusSFURoom { return .object(common + [("classmates", .array(sfu.classmates.map(RoomPresence.json)))]) }
        guard let room = room as? JanusRoom else { return .object(common) }
        let reception = room.reception
        return .object(common + [("participants", .array(room.participants.map(RoomPresence.json))),
                 ("receiving", .bool(reception.receiving)), ("level_db", .maybe(reception.level)),
                 ("seconds", .number(reception.seconds)), ("resyncs", .number(Double(room.input.timelineResyncs))),
                 ("dropped", .number(Double(room.input.droppedPushes))), ("rejected_packets", .number(Double(room.rejectedPackets))),
                 ("jitter_buffer_ms", .maybe(reception.jitterBuffer.map { Double($0.milliseconds) }))] + room.input.lateness.fields)
    }

    /// A classmate for `status`: its peer id (`room-<display>`, the metrics' label), its Janus id and its reception.
    private static func json(_ classmate: JanusSFURoom.ClassmateReception) -> JSON {
        .object([("peer", .string(peerID(classmate.input.id))), ("id", .number(Double(classmate.participant.id))), ("display", .maybe(classmate.participant.display)),
                 ("input", .string(classmate.input.id)), ("connection", .string(classmate.connection)),
                 ("receiving", .bool(classmate.receiving)), ("level_db", .maybe(classmate.level)), ("seconds", .number(classmate.seconds)),
                 ("resyncs", .number(Double(classmate.input.timelineResyncs))), ("dropped", .number(Double(classmate.input.droppedPushes))),
                 ("rejected_packets", .number(Double(classmate.rejectedPackets))),
                 ("jitter_buffer_ms", .maybe(classmate.jitterBuffer.map { Double($0.milliseconds) }))])
    }

    /// The peer id of an engine input (`rtc-room-kiosk-7` → `room-kiosk-7`).
    private static func peerID(_ input: String) -> String { input.hasPrefix("rtc-") ? String(input.dropFirst(4)) : input }

    /// A classmate in an event: who, and the input (peer) their voice plays in.
    private static func classmate(_ participant: JanusRoom.Participant, input: String) -> [(String, JSON)] {
        [("id", .number(Double(participant.id))), ("display", .maybe(participant.display)), ("peer", .string(peerID(input))), ("input", .string(input))]
    }

    private static func json(_ participant: JanusRoom.Participant) -> JSON {
        .object([("id", .number(Double(participant.id))), ("display", .maybe(participant.display)), ("muted", .bool(participant.muted))])
    }

    private static func emit(_ event: JanusRoom.Event, to events: EventLog, mode: JanusRoomAddress.Mode) {
        switch event {
        case .joined(let id, let participants):
            events.emit("room-joined", [("id", .number(Double(id))), ("participants", .array(participants.map(json)))])
        case .participantJoined(let participant):
            events.emit("room-participant", [("action", .string("joined")), ("participant", json(participant))])
        case .participantLeft(let participant):
            events.emit("room-participant", [("action", .string("left")), ("participant", json(participant))])
        case .lost(let reason, let retryIn):
            events.emit("room-lost", [("message", .string(reason)), ("retry_in", .number(Double(retryIn.components.seconds)))])
        case .left:
            events.emit("room-left", [])
        case .refused(let reason):
            events.emit("room-refused", [("message", .string(reason))])
        case .silent(let reason):
            events.emit("room-silent", [("message", .string(reason))])
        case .connection(let state):
            events.emit("room-connection", [("state", .string(state))])
        case .crowded(let ignored):
            let most = mode == .sfu ? "\(JanusSFURoom.maxClassmates) classmates" : "\(JanusRoom.maxParticipants) participants"
            events.emit("room-warning", [("message", .string("the server announced more than \(most); \(ignored) past that are not tracked "
                                                              + "(a room this large is not a class, or the server is misbehaving)"))])
        case .classmateJoined(let participant, let input):
            events.emit("participant-joined", classmate(participant, input: input))
        case .classmateLeft(let participant, let input):
            events.emit("participant-left", classmate(participant, input: input))
        case .talking(let participant, let talking):
            events.emit("participant-talking", [("id", .number(Double(participant.id))), ("display", .maybe(participant.display)), ("talking", .bool(talking))])
        case .jitterBuffer(let delay):
            // The room is the peer `room`: its buffer's moves are said as every peer's are.
            events.emit("live-jitter-buffer", [("id", .string(JanusRoom.peerID)), ("ms", .number(Double(delay.milliseconds)))])
        }
    }
}
