/// What a kiosk integrator should change when Janus refuses a VideoRoom room for good.
extension JanusSFURoom {
    /// What to change, for a refusal that will not fix itself; what is not the VideoRoom's own is said as for any room.
    static func advice(for failure: JanusProtocol.Failure, address: JanusRoomAddress) -> String {
        switch failure {
        case .videoRoom(426, _):
            return "the server has no VideoRoom room \(address.room); create it (a room-\(address.room) section in janus.plugin.videoroom.jcfg, audiocodec = \"opus\") or use another room number"
        case .videoRoom(433, _):
            guard let pin = address.pin else { return "room \(address.room) wants a pin; put it in a file only you can read (chmod 600) and give pin-file=FILE" }
            guard !address.pinOnCommandLine else {
                return "room \(address.room) refused the pin given as pin= as wrong; put the room's pin in a file only you can read (chmod 600) and give pin-file=FILE"
            }
            return "room \(address.room) refused the pin from \(pin.origin) as wrong; put the room's pin in that file"
        case .videoRoom(432, _):
            return "room \(address.room) is full: it has as many publishers as its 'publishers' setting allows; raise it in janus.plugin.videoroom.jcfg"
        case .videoRoom(let code, let reason):
            return "the VideoRoom refused to join room \(address.room): \(reason) (\(code))"
        case .janus(405, let reason):
            let token = address.token.map { "the token from \($0.origin)" } ?? "the token"
            return "Janus refused \(token) for the VideoRoom (405: \(reason)); make it one that grants janus.plugin.videoroom (EXPIRY,janus,janus.plugin.videoroom:SIGNATURE)"
        case .janus(460, let reason):
            return "Janus has no VideoRoom: \(reason) (460); enable janus.plugin.videoroom on the server, or join an AudioBridge room (mode=mix)"
        default:
            return JanusRoom.advice(for: failure, address: address)
        }
    }
}
