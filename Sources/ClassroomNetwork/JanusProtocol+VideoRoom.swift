import Foundation

/// Janus's VideoRoom plugin (an SFU), audio only, as a kiosk of a class uses it
/// (janus.conf.meetecho.com/docs/videoroom): one publisher handle that publishes the kiosk's
/// uplink and hears who comes and goes, and one subscriber handle per classmate, to which Janus
/// offers that classmate's stream and the kiosk answers.
extension JanusProtocol {
    static let videoRoomPlugin = "janus.plugin.videoroom"

    /// A publisher of the room, as the VideoRoom lists it.
    struct Publisher: Sendable, Hashable {
        let id: UInt64
        let display: String?
        /// Whether it publishes an audio stream now (a publisher that sends only video, or whose
        /// audio was removed, has nothing for this kiosk).
        let hasAudio: Bool
    }

    /// What the VideoRoom tells a handle.
    enum VideoRoomEvent: Sendable {
        /// Our publisher handle joined: our id, the private id subscriptions name, and who publishes already.
        case joined(id: UInt64, privateID: UInt64?, publishers: [Publisher])
        /// Publishers started publishing (or changed what they publish).
        case publishers([Publisher])
        /// A publisher stopped publishing.
        case unpublished(UInt64)
        /// A participant left the room.
        case leaving(UInt64)
        /// The answer to our `publish` offer.
        case answer(String)
        /// A subscriber handle's offer (`attached`, or `updated` after a change): to be answered with `start`.
        case offer(String)
        /// A publisher started or stopped talking (the room's `audiolevel_event`).
        case talking(UInt64, Bool)
        /// A request of ours failed.
        case failed(Failure)
        /// Anything else (`started`, acks).
        case other
    }

    /// Decodes a VideoRoom event's `plugindata.data` (with the event's jsep).
    static func videoRoomEvent(_ data: [String: Any], jsep: [String: Any]?, sender: UInt64?, transaction: String?) -> Event {
        func wrap(_ event: VideoRoomEvent) -> Event { .videoRoom(event, sender: sender, transaction: transaction) }
        if let code = data["error_code"] as? Int {
            return wrap(.failed(.videoRoom(code: code, reason: (data["error"] as? String) ?? "unknown")))
        }
        let sdp = jsep?["sdp"] as? String
        let publishers = ((data["publishers"] as? [[String: Any]]) ?? []).compactMap(publisher)
        switch data["videoroom"] as? String {
        case "joined":
            guard let id = id(data["id"]) else { return wrap(.other) }
            return wrap(.joined(id: id, privateID: JanusProtocol.id(data["private_id"]), publishers: publishers))
        case "attached", "updated":
            guard jsep?["type"] as? String == "offer", let sdp else { return wrap(.other) }
            return wrap(.offer(sdp))
        case "talking", "stopped-talking":
            guard let id = id(data["id"]) else { return wrap(.other) }
            return wrap(.talking(id, data["videoroom"] as? String == "talking"))
        case "event":
            if jsep?["type"] as? String == "answer", let sdp { return wrap(.answer(sdp)) }
            // Ours come as "ok"; another participant's as its id.
            if let gone = id(data["unpublished"]) { return wrap(.unpublished(gone)) }
            if let gone = id(data["leaving"]) { return wrap(.leaving(gone)) }
            if let kicked = id(data["kicked"]) { return wrap(.leaving(kicked)) }
            if !publishers.isEmpty { return wrap(.publishers(publishers)) }
            return wrap(.other)
        case "destroyed":
            return .removed("the room was destroyed", sender: sender)
        default:
            return wrap(.other)
        }
    }

    /// One entry of a `publishers` list.
    private static func publisher(_ entry: [String: Any]) -> Publisher? {
        guard let id = id(entry["id"]) else { return nil }
        let streams = (entry["streams"] as? [[String: Any]]) ?? []
        // A stream Janus disabled (its publisher removed it) carries nothing.
        let audio = streams.contains { $0["type"] as? String == "audio" && ($0["disabled"] as? Bool) != true }
        // A display name is a person's name: what is longer than a name is cut, never kept whole.
        return Publisher(id: id, display: (entry["display"] as? String).map { String($0.prefix(maxDisplay)) }, hasAudio: audio || (streams.isEmpty && entry["audio_codec"] != nil))
    }

    // MARK: Requests (answered by an event on the long poll)

    /// `join` as a publisher of `room`. Returns the transaction the `joined` event carries.
    func joinAsPublisher(session: UInt64, handle: UInt64, room: UInt64, display: String, pin: String?) throws(Failure) -> String {
        var body: [String: Any] = ["request": "join", "ptype": "publisher", "room": room, "display": display]
        if let pin { body["pin"] = pin }
        return try message(session: session, handle: handle, body)
    }

    /// `publish` the offer's audio (its candidates in it: no trickle); Janus answers on the poll.
    func publish(session: UInt64, handle: UInt64, offer: String) throws(Failure) -> String {
        try message(session: session, handle: handle, ["request": "publish", "audiocodec": "opus"], jsep: ["type": "offer", "sdp": offer, "trickle": false])
    }

    /// `join` as a subscriber of publisher `feed`'s streams; Janus offers them on the poll (`attached`).
    func subscribe(session: UInt64, handle: UInt64, room: UInt64, feed: UInt64, privateID: UInt64?, pin: String?) throws(Failure) -> String {
        var body: [String: Any] = ["request": "join", "ptype": "subscriber", "room": room, "streams": [["feed": feed]]]
        if let privateID { body["private_id"] = privateID }
        if let pin { body["pin"] = pin }
        return try message(session: session, handle: handle, body)
    }

    /// `start` a subscription with our answer to its offer.
    func start(session: UInt64, handle: UInt64, answer: String) throws(Failure) {
        _ = try message(session: session, handle: handle, ["request": "start"], jsep: ["type": "answer", "sdp": answer, "trickle": false])
    }

    /// `detach` a handle: its subscription (and PeerConnection) ends at the server.
    func detach(session: UInt64, handle: UInt64) throws(Failure) {
        _ = try post(url.appendingPathComponent("\(session)/\(handle)"), ["janus": "detach"])
    }
}
