import GStreamer
/// Who is in the room and what happens to it, as a `JanusRoom` tells its owner.
extension JanusRoom {
    /// A participant of the room.
    public struct Participant: Sendable, Hashable {
        /// The room's id for it.
        public let id: UInt64
        /// The name it joined with.
        public let display: String?
        /// Whether it is muted in the room.
        public let muted: Bool
    }

    /// What happens to the room, on the room's own threads.
    public enum Event: Sendable {
        /// Joined (again): our id and who else is there.
        case joined(id: UInt64, participants: [Participant])
        /// Someone joined.
        case participantJoined(Participant)
        /// Someone left.
        case participantLeft(Participant)
        /// The server stopped answering or dropped us; the next attempt comes after `retryIn`.
        case lost(reason: String, retryIn: Duration)
        /// We left (on `leave()`).
        case left
        /// The room cannot be joined as configured (not Janus, no such room, a wrong pin …): what to
        /// change. The room stops trying; `leave()` still cleans up.
        case refused(String)
        /// Joined, but none of the room's audio arrives: why, and what to check.
        case silent(String)
        /// WebRTC: the PeerConnection's state moved ("connecting", "connected", "disconnected", "failed", "closed").
        case connection(String)
        /// The room's adaptive jitter buffer now holds this long.
        case jitterBuffer(ClockTime)
        /// The server announced more participants than a room holds (`JanusRoom.maxParticipants`,
        /// `JanusSFURoom.maxClassmates`): those past it are not tracked; said once per join, with
        /// how many were passed over so far.
        case crowded(ignored: Int)
        /// SFU: a classmate's voice became an engine input of its own (`input`, its id), to be mixed here.
        case classmateJoined(Participant, input: String)
        /// SFU: a classmate left, stopped publishing or was lost with the room: its input is gone.
        case classmateLeft(Participant, input: String)
        /// SFU: a classmate started or stopped talking (the room's voice activity, from the levels its audio carries).
        case talking(Participant, Bool)
    }
}
