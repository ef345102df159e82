import ClassroomEngine

/// A Janus room this kiosk takes part in, whoever mixes the class: the server (`JanusRoom`, an
/// AudioBridge) or this kiosk (`JanusSFURoom`, a VideoRoom). What a player needs of either.
public protocol JanusClassRoom: AnyObject, Sendable {
    /// Where the room is.
    var address: JanusRoomAddress { get }
    /// Joins beside the class, muted or not; `onEvent` hears what happens, on the room's threads.
    func join(muted: Bool, onEvent: @escaping @Sendable (JanusRoom.Event) -> Void) throws(EngineError)
    /// Sends one uplink frame (nothing while not joined).
    func send(_ frame: UplinkFrame)
    /// Mutes or unmutes this kiosk in the room; remembered for rejoins.
    func setMuted(_ muted: Bool)
    /// Whether this kiosk is (to be) muted in the room.
    var isMuted: Bool { get }
    /// Whether the room is joined now.
    var isJoined: Bool { get }
    /// The (publishing) PeerConnection's state; nil for plain RTP or while not joined.
    var connectionState: String? { get }
    /// Leaves the room, bounded (about 2 s when the server is gone).
    func leave()
}

extension JanusRoom: JanusClassRoom {}
extension JanusSFURoom: JanusClassRoom {}
