import ClassroomEngine

/// What a kiosk integrator should change when Janus refuses the room for good: one sentence per
/// refusal, naming the setting or the address to fix.
extension JanusRoom {
    /// What to change, for a refusal that will not fix itself.
    static func advice(for failure: JanusProtocol.Failure, address: JanusRoomAddress) -> String {
        switch failure {
        case .notJanus(let why):
            return "\(address.host):\(address.port) is not a Janus HTTP API (\(why)); check the host and port (Janus listens on 8088 by default)"
        case .audioBridge(485, _):
            return "the server has no AudioBridge room \(address.room); create it (a room-\(address.room) section in janus.plugin.audiobridge.jcfg) or use another room number"
        case .audioBridge(489, let reason) where reason.lowercased().contains("rtp"):
            return "room \(address.room) does not take plain-RTP participants; set allow_rtp_participants = true in its section of janus.plugin.audiobridge.jcfg"
        case .audioBridge(489, _):
            return "room \(address.room) refused the pin; give the room's pin as ?pin=PIN"
        case .audioBridge(let code, let reason):
            return "the AudioBridge refused to join room \(address.room): \(reason) (\(code))"
        case .janus(403, let reason):
            return "Janus refused the request as unauthorized: \(reason) (403); the server wants an API secret or token (api_secret or token_auth in janus.jcfg), which this kiosk does not send: turn them off for this server or name one without them"
        case .janus(460, let reason):
            return "Janus has no AudioBridge: \(reason) (460); enable janus.plugin.audiobridge on the server"
        case .janus(let code, let reason):
            return "Janus refused: \(reason) (\(code))"
        case .unreachable, .serverError:
            return failure.description
        }
    }
}
