import Foundation

/// What the long poll brings, decoded: the AudioBridge's events here, the VideoRoom's in
/// `JanusProtocol+VideoRoom`.
extension JanusProtocol {
    /// Decodes one event of the long poll: Janus's own (hangup, webrtcup, errors), the AudioBridge's,
    /// or the VideoRoom's (`JanusProtocol+VideoRoom`).
    static func event(_ event: [String: Any]) throws(Failure) -> Event {
        let kind = event["janus"] as? String
        if kind == "error", let error = event["error"] as? [String: Any] {
            throw .janus(code: (error["code"] as? Int) ?? 0, reason: (error["reason"] as? String) ?? "unknown")
        }
        switch kind {
        case "hangup": return .removed("Janus hung up the PeerConnection (\((event["reason"] as? String) ?? "no reason given"))", sender: id(event["sender"]))
        case "webrtcup": return .webRTCUp
        default: break
        }
        guard kind == "event", let plugin = event["plugindata"] as? [String: Any], let data = plugin["data"] as? [String: Any] else { return .other }
        let transaction = event["transaction"] as? String
        if plugin["plugin"] as? String == JanusProtocol.videoRoomPlugin { return videoRoomEvent(data, jsep: event["jsep"] as? [String: Any], sender: id(event["sender"]), transaction: transaction) }
        if let code = data["error_code"] as? Int {
            return .failed(transaction: transaction, .audioBridge(code: code, reason: (data["error"] as? String) ?? "unknown"))
        }
        let participants = ((data["participants"] as? [[String: Any]]) ?? []).compactMap { entry -> Participant? in
            guard let id = id(entry["id"]) else { return nil }
            // A display name is a person's name: what is longer than a name is cut, never kept whole.
            return Participant(id: id, display: (entry["display"] as? String).map { String($0.prefix(JanusProtocol.maxDisplay)) }, muted: (entry["muted"] as? Bool) ?? false)
        }
        switch data["audiobridge"] as? String {
        case "joined":
            guard let id = id(data["id"]) else { return .participants(participants) }
            if let rtp = data["rtp"] as? [String: Any], let address = rtp["ip"] as? String, let port = rtp["port"] as? Int {
                return .joined(transaction: transaction, id: id, participants: participants, media: .rtp(address: address, port: port))
            }
            if let jsep = event["jsep"] as? [String: Any], jsep["type"] as? String == "answer", let sdp = jsep["sdp"] as? String {
                return .joined(transaction: transaction, id: id, participants: participants, media: .answer(sdp))
            }
            // A "joined" without our media is another participant joining.
            return .participants(participants)
        case "left":
            return .left
        case "destroyed":
            return .removed("the room was destroyed", sender: nil)
        case "event":
            if let leaving = id(data["leaving"]) { return .leaving(leaving) }
            if let kicked = id(data["kicked"]) { return .leaving(kicked) }
            if !participants.isEmpty { return .participants(participants) }
            return .other
        default:
            return .other
        }
    }
}
