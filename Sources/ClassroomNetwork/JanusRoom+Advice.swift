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
            return "room \(address.room) does not take plain-RTP participants; join it over WebRTC (--room http://\(address.host):\(address.port)/janus?room=\(address.room), encrypted), "
                + "or set allow_rtp_participants = true in its section of janus.plugin.audiobridge.jcfg"
        case .audioBridge(489, _):
            guard let pin = address.pin else { return "room \(address.room) wants a pin; put it in a file only you can read (chmod 600) and give pin-file=FILE" }
            guard !address.pinOnCommandLine else {
                return "room \(address.room) refused the pin given as pin= as wrong; put the room's pin in a file only you can read (chmod 600) and give pin-file=FILE"
            }
            return "room \(address.room) refused the pin from \(pin.origin) as wrong; put the room's pin in that file"
        case .audioBridge(483, let reason) where reason.contains("pin"):
            return "room \(address.room) wants a pin; put it in a file only you can read (chmod 600) and give pin-file=FILE"
        case .audioBridge(let code, let reason):
            return "the AudioBridge refused to join room \(address.room): \(reason) (\(code))"
        case .janus(403, let reason):
            return unauthorized(reason, address: address)
        case .janus(405, let reason):
            let token = address.token.map { "the token from \($0.origin)" } ?? "the token"
            return "Janus refused \(token) for the AudioBridge (405: \(reason)); make it one that grants janus.plugin.audiobridge (EXPIRY,janus,janus.plugin.audiobridge:SIGNATURE)"
        case .janus(460, let reason):
            return "Janus has no AudioBridge: \(reason) (460); enable janus.plugin.audiobridge on the server"
        case .janus(let code, let reason):
            return "Janus refused: \(reason) (\(code))"
        case .untrusted(let why):
            return untrusted(why, address: address)
        case .speaksHTTPS:
            let secure = "https://\(address.hostInURL):\(address.port)\(address.apiPath)?room=\(address.room)"
            let ca = "ca=FILE (the PEM of the CA that signed the server's certificate) unless the system's CAs trust it"
            switch address.media {
            case .webRTC:
                return "\(address.host):\(address.port) speaks HTTPS, not plain HTTP: join \(secure) with your other options, and \(ca)"
            case .plainRTP:
                return "\(address.host):\(address.port) speaks HTTPS, and janus:// rooms use Janus's plain HTTP port: give that port (its 'port' in janus.transport.http.jcfg), "
                    + "or join encrypted over WebRTC: \(secure) with your other options, and \(ca)"
            }
        case .videoRoom(let code, let reason):
            return "the VideoRoom refused to join room \(address.room): \(reason) (\(code))"
        case .unreachable, .serverError, .local:
            return failure.description
        }
    }

    /// A certificate for another name wants another certificate (or name), not a CA; one that the
    /// CA in ca= did not sign wants the CA that did, and without ca= the system's CAs are the ones asked.
    private static func untrusted(_ why: String, address: JanusRoomAddress) -> String {
        let server = "https://\(address.host):\(address.port) \(why)"
        // OpenSSL's words for X509_V_ERR_HOSTNAME_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH.
        if why.contains("hostname mismatch") || why.contains("IP address mismatch") {
            return "\(server); its certificate is for another name: give the server a certificate that names \(address.host) (subjectAltName), or join it by a name its certificate has"
        }
        if let caFile = address.trust?.caFile {
            return "\(server); the CA in \(caFile) did not sign it: give ca= the PEM of the CA that did, or give the server a certificate signed by the CA in \(caFile)"
        }
        return "\(server); give ca=FILE (the PEM of the CA that signed the server's certificate) in the room URI, or give the server a certificate for \(address.host) that the system's CAs trust"
    }

    /// A 403 names the credential Janus refused: the token, the API secret, or (with both sent, since
    /// Janus takes either) both; with none sent, the files to give.
    private static func unauthorized(_ reason: String, address: JanusRoomAddress) -> String {
        switch (address.token, address.apiSecret) {
        case (let token?, nil):
            return "Janus refused \(token) as unauthorized (403: \(reason)); it may be wrong, expired, or not for janus.plugin.audiobridge: put a valid token in it"
        case (nil, let secret?):
            return "Janus refused \(secret) as unauthorized (403: \(reason)); put the server's api_secret (janus.jcfg) in it"
        case (let token?, let secret?):
            return "Janus refused both \(token) and \(secret) as unauthorized (403: \(reason)); put a valid one in either"
        case (nil, nil):
            return "Janus refused the request as unauthorized: \(reason) (403); the server wants an API secret or token (api_secret or token_auth in janus.jcfg), which this kiosk does not send: "
                + "give apisecret-file=FILE or token-file=FILE in the room URI (a file only you can read), or turn them off for this server"
        }
    }
}
