import ClassroomEngine
import Foundation
import TLS

/// Janus's HTTP API and its AudioBridge plugin, as a plain-RTP or WebRTC participant uses them — every
/// request, reply and event of the protocol is in this file (janus.conf.meetecho.com/docs/rest,
/// /docs/audiobridge). Calls block the calling thread (bounded by their timeout): the room runs
/// them on threads of its own.
struct JanusProtocol: Sendable {
    /// What went wrong talking to the server.
    enum Failure: Error, Sendable, CustomStringConvertible {
        /// Nothing answered (refused, unreachable, timed out): the server may come back.
        case unreachable(String)
        /// The server answered HTTP 500, 502, 503 or 504: it (or a proxy before it) fails now and may recover.
        case serverError(String)
        /// Something answered, but not as Janus does.
        case notJanus(String)
        /// Janus refused a request (e.g. 458 no such session).
        case janus(code: Int, reason: String)
        /// The AudioBridge refused a request (485 no such room, 489 unauthorized / no RTP participants …).
        case audioBridge(code: Int, reason: String)
        /// The VideoRoom refused a request (426 no such room, 433 unauthorized, 432 the room is full …).
        case videoRoom(code: Int, reason: String)
        /// This kiosk cannot take part as asked (e.g. no WebRTC elements installed).
        case local(String)
        /// HTTPS: the server's certificate fails verification, or it speaks no TLS there.
        case untrusted(String)
        /// HTTP to a port that speaks HTTPS (TLS) only.
        case speaksHTTPS

        var description: String {
            switch self {
            case .unreachable(let why): return "the server does not answer (\(why))"
            case .serverError(let why): return "the server fails (\(why))"
            case .notJanus(let why): return "it is not a Janus server (\(why))"
            case .janus(let code, let reason): return "Janus refused: \(reason) (\(code))"
            case .audioBridge(let code, let reason): return "the AudioBridge refused: \(reason) (\(code))"
            case .videoRoom(let code, let reason): return "the VideoRoom refused: \(reason) (\(code))"
            case .local(let why): return "this kiosk cannot join as asked: \(why)"
            case .untrusted(let why): return "the server is not trusted: \(why)"
            case .speaksHTTPS: return "the server speaks HTTPS on that port, not HTTP"
            }
        }

        /// Whether it may fix itself: the server comes back or recovers, or whatever answers in its
        /// place (a redirect, an HTML page, a proxy speaking old TLS, a body too large) goes away.
        /// Retried while the class plays. What is refused as configured (Janus or the AudioBridge
        /// says no: a token, a pin, a room; a certificate that fails; this kiosk cannot join as
        /// asked) is not: retrying would ask the same and be told the same.
        var isTransient: Bool {
            switch self {
            case .unreachable, .serverError, .notJanus: return true
            case .janus, .audioBridge, .videoRoom, .local, .untrusted, .speaksHTTPS: return false
            }
        }
    }

    /// A participant of the room, as the AudioBridge lists it.
    struct Participant: Sendable, Hashable {
        let id: UInt64
        let display: String?
        let muted: Bool
    }

    /// How a participant's audio travels, as the join asks for it.
    enum JoinMedia: Sendable {
        /// Plain RTP: Janus sends the mix to `address:port` and takes ours only from there.
        case rtp(address: String, port: Int, payloadType: Int)
        /// WebRTC: this SDP offer (its ICE candidates gathered); Janus answers in `joined`.
        case offer(String)
    }

    /// How the joined participant's audio travels, as Janus confirms it.
    enum JoinedMedia: Sendable {
        /// Janus's RTP address for a plain-RTP participant.
        case rtp(address: String, port: Int)
        /// Janus's SDP answer to a WebRTC participant's offer.
        case answer(String)
    }

    /// What the long poll brings.
    enum Event: Sendable {
        /// Someone joined with an id and its media: us when `transaction` is our join's.
        case joined(transaction: String?, id: UInt64, participants: [Participant], media: JoinedMedia)
        /// Participants joined or changed (mute).
        case participants([Participant])
        /// A participant left.
        case leaving(UInt64)
        /// We left the room.
        case left
        /// We were kicked, the room was destroyed, or Janus hung up the PeerConnection of handle `sender`.
        case removed(String, sender: UInt64?)
        /// Janus's end of our PeerConnection is up (DTLS done).
        case webRTCUp
        /// A request of ours failed.
        case failed(transaction: String?, Failure)
        /// What the VideoRoom says to handle `sender` (`JanusProtocol+VideoRoom`).
        case videoRoom(VideoRoomEvent, sender: UInt64?, transaction: String?)
        /// Anything else (acks of configure, keepalives).
        case other
    }

    /// The API's URL, `http://HOST:PORT/janus`.
    let url: URL
    /// How long one request may take.
    let timeout: TimeInterval
    /// Janus's token_auth token, sent as "token" in every request; nil when the server wants none.
    var token: String? = nil
    /// Janus's API secret, sent as "apisecret" in every request; nil when the server wants none.
    var apiSecret: String? = nil
    /// HTTPS: whom the server's certificate must be signed by; nil for plain HTTP.
    var trust: TLSSession.Trust? = nil
    /// Ends this protocol's exchanges at once, the one under way and every later one (`cut(by:)`).
    var halt: HTTPCancellation? = nil

    /// The same protocol with every exchange ended by `halt`: one series of requests (a join) that
    /// a leave must not wait out. Sequential only: `HTTPCancellation` holds one exchange at a time.
    func cut(by halt: HTTPCancellation) -> JanusProtocol {
        var cut = self
        cut.halt = halt
        return cut
    }

    // MARK: Session and handle

    /// `create`: a new session; returns its id.
    func createSession() throws(Failure) -> UInt64 {
        let reply = try post(url, ["janus": "create"])
        guard let id = JanusProtocol.id(reply["data"].flatMap { ($0 as? [String: Any])?["id"] }) else {
            throw .notJanus("'create' returned no session id")
        }
        return id
    }

    /// `attach` to the AudioBridge plugin; returns the handle id.
    func attachAudioBridge(session: UInt64) throws(Failure) -> UInt64 { try attach(session: session, plugin: "janus.plugin.audiobridge") }

    /// `attach` to `plugin`; returns the handle id.
    func attach(session: UInt64, plugin: String) throws(Failure) -> UInt64 {
        let reply = try post(url.appendingPathComponent("\(session)"), ["janus": "attach", "plugin": plugin])
        guard let id = JanusProtocol.id(reply["data"].flatMap { ($0 as? [String: Any])?["id"] }) else {
            throw .notJanus("'attach' returned no handle id")
        }
        return id
    }

    /// `destroy` the session (leaves every handle's room).
    func destroy(session: UInt64) throws(Failure) {
        _ = try post(url.appendingPathComponent("\(session)"), ["janus": "destroy"])
    }

    /// `leave` and `destroy`, waiting at most `seconds` for a server that is gone or hangs: Janus
    /// drops the session itself after its timeout, and a stop does not wait longer for it.
    func farewell(session: UInt64, handle: UInt64?, within seconds: TimeInterval) {
        let quick = JanusProtocol(url: url, timeout: seconds / 2, token: token, apiSecret: apiSecret, trust: trust)
        let told = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if let handle { try? quick.leave(session: session, handle: handle) }
            try? quick.destroy(session: session)
            told.signal()
        }
        _ = told.wait(timeout: .now() + seconds)
    }

    // MARK: AudioBridge requests (answered by an event on the long poll)

    /// `join`, buffering `prebuffer` packets of ours before mixing them. Plain RTP: Janus will send
    /// the room's mix as Opus to the given address and accept ours only from there. WebRTC: the
    /// offer goes as the message's `jsep` (its candidates in it: no trickle). Returns the
    /// transaction to match the `joined` event with.
    func join(session: UInt64, handle: UInt64, room: UInt64, display: String, pin: String?, muted: Bool, prebuffer: Int,
              media: JoinMedia) throws(Failure) -> String {
        var body: [String: Any] = ["request": "join", "room": room, "display": display, "muted": muted, "prebuffer": prebuffer]
        if let pin { body["pin"] = pin }
        switch media {
        case .rtp(let address, let port, let payloadType):
            body["rtp"] = ["ip": address, "port": port, "payload_type": payloadType]
            return try message(session: session, handle: handle, body)
        case .offer(let sdp):
            return try message(session: session, handle: handle, body, jsep: ["type": "offer", "sdp": sdp, "trickle": false])
        }
    }

    /// `configure` our mute state: the room's talk events and every participant see it.
    func configure(session: UInt64, handle: UInt64, muted: Bool) throws(Failure) {
        _ = try message(session: session, handle: handle, ["request": "configure", "muted": muted])
    }

    /// `leave` the room.
    func leave(session: UInt64, handle: UInt64) throws(Failure) {
        _ = try message(session: session, handle: handle, ["request": "leave"])
    }

    func message(session: UInt64, handle: UInt64, _ body: [String: Any], jsep: [String: Any]? = nil) throws(Failure) -> String {
        let transaction = JanusProtocol.transaction()
        var request: [String: Any] = ["janus": "message", "body": body]
        if let jsep { request["jsep"] = jsep }
        let reply = try post(url.appendingPathComponent("\(session)/\(handle)"), request, transaction: transaction)
        guard reply["janus"] as? String == "ack" || reply["janus"] as? String == "success" else {
            throw .notJanus("a plugin message was answered with '\(reply["janus"] ?? "nothing")'")
        }
        return transaction
    }

    // MARK: The long poll

    /// `GET /janus/SESSION?maxev=N`: waits (Janus holds it up to 30 s) for up to N events. It also
    /// keeps the session alive.
    /// `timeout` bounds a poll that the server holds longer than it should; `cancellation` ends it early.
    func poll(session: UInt64, maxEvents: Int = 10, timeout: TimeInterval = 40, cancellation: HTTPCancellation? = nil) throws(Failure) -> [Event] {
        // A GET has no body: the credentials go in the query (never in a message: those name the path only).
        let credentials = [("token", token), ("apisecret", apiSecret)].compactMap { name, value in
            value.map { "&\(name)=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        }.joined()
        guard let pollURL = URL(string: url.appendingPathComponent("\(session)").absoluteString + "?maxev=\(maxEvents)" + credentials) else { return [] }
        let value = try request(pollURL, body: nil, timeout: max(timeout, 0.1), cancellation: cancellation)
        let items = (value as? [Any]) ?? [value]
        return try items.map { item throws(Failure) in
            guard let event = item as? [String: Any] else { throw .notJanus("an event that is not a JSON object") }
            return try JanusProtocol.event(event)
        }
    }

    /// The longest display name kept (Janus's own limit is a configuration matter; a name is short).
    static let maxDisplay = 64

    // MARK: HTTP

    func post(_ target: URL, _ body: [String: Any], transaction: String = JanusProtocol.transaction()) throws(Failure) -> [String: Any] {
        var body = body
        body["transaction"] = transaction
        if let token { body["token"] = token }
        if let apiSecret { body["apisecret"] = apiSecret }
        guard let reply = try request(target, body: body, timeout: timeout) as? [String: Any] else {
            throw .notJanus("the reply is not a JSON object")
        }
        if reply["janus"] as? String == "error", let error = reply["error"] as? [String: Any] {
            throw .janus(code: (error["code"] as? Int) ?? 0, reason: (error["reason"] as? String) ?? "unknown")
        }
        // Janus answers each request with its transaction: a reply for another one is not ours to take.
        guard reply["transaction"] as? String == transaction else {
            throw .notJanus("the reply at \(target.path) is for another transaction (\(reply["transaction"] ?? "none"))")
        }
        return reply
    }

    /// One HTTP exchange (`JanusHTTP`: bounded, no redirects), decoded as JSON.
    private func request(_ target: URL, body: [String: Any]?, timeout: TimeInterval, cancellation: HTTPCancellation? = nil) throws(Failure) -> Any {
        let host = (target.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let path = target.path + (target.query.map { "?\($0)" } ?? "")
        let data = body.flatMap { try? JSONSerialization.data(withJSONObject: $0) }
        switch JanusHTTP.exchange(host: host, port: target.port ?? (trust == nil ? 80 : 443), trust: trust, method: body == nil ? "GET" : "POST", path: path, body: data, timeout: timeout,
                                   cancellation: cancellation ?? halt) {
        case .failed(let why):
            throw .unreachable(why)
        case .untrusted(let why):
            throw .untrusted(why)
        case .speaksTLS:
            throw .speaksHTTPS
        case .noTLS(let why):
            throw .notJanus("\(why); is \(host):\(target.port ?? 443) Janus's HTTPS port (its secure_port), or should the room be http://?")
        case .tooLarge(let bytes):
            throw .notJanus("a reply at \(target.path) of more than \(JanusHTTP.maxReplyBytes / 1024) KiB (\(bytes / 1024) KiB came) was cut off; Janus's replies are a few KiB")
        case .redirected(let status, let location):
            throw .notJanus("HTTP \(status) at \(target.path) redirects to \(location), which the kiosk does not follow; name the Janus API itself")
        case .reply(let status, let data):
            // Failing or behind a gateway that cannot reach it now; a 501 is a server that is no Janus.
            if [500, 502, 503, 504].contains(status) { throw .serverError("HTTP status \(status) at \(target.path)") }
            if status == 401 || status == 403 { throw .janus(code: 403, reason: "HTTP status \(status) at \(target.path)") }
            guard (200..<300).contains(status) else { throw .notJanus("HTTP status \(status) at \(target.path)") }
            guard let value = try? JSONSerialization.jsonObject(with: data) else { throw .notJanus("the reply at \(target.path) is not JSON") }
            return value
        }
    }

    /// A fresh transaction id.
    static func transaction() -> String { UUID().uuidString }

    /// A Janus id (a JSON number up to 2^53).
    static func id(_ value: Any?) -> UInt64? {
        if let number = value as? NSNumber { return number.uint64Value }
        if let text = value as? String { return UInt64(text) }
        return nil
    }
}
