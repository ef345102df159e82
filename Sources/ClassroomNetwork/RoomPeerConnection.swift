import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization
import TLS

/// A kiosk's WebRTC PeerConnection into a Janus room (ICE, DTLS-SRTP), the kiosk the offerer: the
/// uplink goes out through an `UplinkSender` whose destination is a webrtcbin, and the room's mix
/// comes out of that webrtcbin into the room's engine input. One per join; a rejoin makes a new one.
///
///     UplinkSender: appsrc ► mixer ► tee ► queue ► opusenc ► rtpopuspay ► webrtcbin ═ Janus
///     webrtcbin src_N ► rtpopusdepay ► opusdec ► PeerFeed's tail ► appsink ─► AudioInput.push
///
/// How webrtcbin 1.22 and Janus 1.1.2 meet, measured: docs/WEBRTC-NOTES.md.
final class RoomPeerConnection: Sendable {
    /// How long ICE may take to gather the kiosk's candidates (about 200 ms measured) before the
    /// offer goes with those it has.
    static let gatheringTimeout = DispatchTimeInterval.seconds(3)
    /// How long the first RTP may take to reach webrtcbin (the live mixer's first output, tens of ms).
    static let capsTimeout = DispatchTimeInterval.seconds(2)

    private let sender: UplinkSender
    private let webRTC: WebRTCBin
    let counters = PeerCounters()
    /// The room's jitter buffer (webrtcbin's rtpbin makes it with the stream), fixed or following the arrival jitter.
    let jitterBuffer = Mutex<AdaptiveJitterBuffer?>(nil)
    private let gathered = DispatchSemaphore(value: 0)
    private let tokens = Mutex<[any AnyObject & Sendable]>([])
    private let logger: Logger
    /// Holds the media until the DTLS peer's certificate matches the answer's fingerprint.
    private let peerCheck: DTLSFingerprintCheck
    /// The transport's dtlsdec, whose `decoder-key` the received packets are checked against.
    private let dtlsDecoder = Mutex<Element?>(nil)
    /// What keeps packets that fail the key's check from srtpdec, once webrtcbin made its srtpdec;
    /// held as long as the connection runs.
    private let streamGuard = Mutex<SRTPStreamGuard?>(nil)

    /// Builds the connection; `onState` hears webrtcbin's connection-state nicks ("connecting",
    /// "connected", "failed" …) and `onJitterBuffer` each move of an adaptive jitter buffer, on
    /// webrtcbin's threads; `onImpostor` why the DTLS peer is not the one the answer named, on a
    /// thread of its own. Nothing runs until `offer()`.
    init(input: AudioInput, jitterBuffer setting: JitterBufferSetting, logger: Logger, onState: @escaping @Sendable (String) -> Void,
         onJitterBuffer: @escaping @Sendable (ClockTime) -> Void, onImpostor: @escaping @Sendable (String) -> Void) throws(EngineError) {
        self.logger = logger
        peerCheck = DTLSFingerprintCheck(onMismatch: onImpostor)
        var initial = JitterBufferPolicy.start
        if case .fixed(let delay) = setting { initial = delay }
        sender = try UplinkSender(destinations: [.webRTC(latency: initial)], logger: logger)
        guard let webRTC = sender.webRTCBin, let rtpBin = sender.pipeline.element(named: "rtpbin") else { throw .gstreamer(.failed("the uplink has no webrtcbin")) }
        self.webRTC = webRTC
        // The room's audio is decoded and pushed on the sender's threads (the uplink shares them).
        input.scheduleFeeder(sender.pipeline)
        let gathered = self.gathered
        let states = webRTC.onChange(of: ["connection-state", "ice-gathering-state"]) { property, nick in
            if property == "ice-gathering-state" {
                if nick == "complete" { gathered.signal() }
            } else {
                onState(nick)
            }
        }
        let received = webRTC.element.onPadAdded { [weak self] pad in
            guard pad.direction == .source, let self else { return }
            do {
                try receive(pad, into: input)
            } catch {
                logger.error("room: the room's audio cannot be decoded: \(error)")
            }
        }
        let pipeline = sender.pipeline, counters = self.counters
        // The received chain joining or a jitter buffer moving changes the latency; the tail says its level.
        let messages = pipeline.bus.subscribe { message in counters.follow(message, in: pipeline) }
        // webrtcbin's jitter buffers hold a fixed latency unless moved: the same control as an RTP
        // peer's (AdaptiveJitterBuffer), made with the stream (WORKAROUNDS §27). do-lost is webrtcbin's
        // own default (its rtpbin's, on 1.22 and 1.26); set here as on every peer, so a loss is always said.
        let jitterBuffers = rtpBin.onNewJitterBuffer { [weak self] element in
            guard let self else { return }
            do {
                try element.set("do-lost", true)
                let control = try AdaptiveJitterBuffer(element: element, setting: setting, clockRate: 48_000) { delay in
                    input.reanchor()
                    logger.info("room: the jitter buffer now holds \(delay.milliseconds) ms")
                    onJitterBuffer(delay)
                }
                jitterBuffer.withLock { $0 = control }
                if let probe = try control.watch() { tokens.withLock { $0.append(probe) } }
            } catch {
                logger.warning("room: the jitter buffer stays as webrtcbin made it: \(error)")
            }
        }
        tokens.withLock { $0 += states + [received, messages, jitterBuffers] }
        try guardTransports()
    }

    /// What crosses the network is held to account: libnice neither asks a UPnP gateway to open
    /// ports nor offers TCP candidates (a LAN's rogue gateway would see every join and put its own
    /// address into the offer); nothing is sent or played before the DTLS peer is verified; and
    /// an SSRC reaches srtpdec only once its packets authenticate (`SRTPStreamGuard`).
    private func guardTransports() throws(EngineError) {
        do {
            let agent = try webRTC.element.object("ice-agent")
            try agent?.set("ice-tcp", false)
            try agent?.set("upnp", false, onObjectIn: "agent")
            let uplink = webRTC.element.pads.first { $0.direction == .sink }
            if let held = uplink.flatMap({ peerCheck.hold($0) }) { tokens.withLock { $0.append(held) } }
        } catch {
            throw .gstreamer(error)
        }
        let added = webRTC.element.onDeepElementAdded { [weak self] element in
            guard let self else { return }
            switch element.factoryName {
            case "dtlsdec":
                let watch = peerCheck.watch(element)
                tokens.withLock { $0.append(watch) }
                dtlsDecoder.withLock { $0 = element }
            case "srtpdec":
                do {
                    // Only the address ICE chose reaches srtpdec (libnice drops other sources): a packet failing the key's check there is forged.
                    let streams = try SRTPStreamGuard(element, key: { [weak self] in self?.receiveKey() }, onFirstRefusal: { [logger] in
                        logger.warning("room: packets that fail SRTP authentication arrive from the room's media address: someone on the network forges them; they are dropped, and counted in the room's rejected_packets")
                    })
                    streamGuard.withLock { $0 = streams }
                    if let held = try peerCheck.hold(element.staticPad("rtp_src")) { tokens.withLock { $0.append(held) } }
                } catch {
                    logger.error("room: the received media cannot be guarded: \(error)")
                }
            default:
                break
            }
        }
        tokens.withLock { $0.append(added) }
    }

    /// Packets of a new SSRC that failed the SRTP key's check before srtpdec.
    var rejectedPackets: Int { streamGuard.withLock { $0?.refused.load(ordering: .relaxed) } ?? 0 }

    /// The key the DTLS handshake gave for what is received, as a tag check; nil before the handshake.
    private func receiveKey() -> SRTPAuthenticator? {
        guard let decoder = dtlsDecoder.withLock({ $0 }), let bytes = try? decoder.bufferBytes("decoder-key"), bytes.count == 30 else { return nil }
        // GstDtlsSrtpAuth: 1 is HMAC_SHA1_32 (a 4-byte tag), 2 HMAC_SHA1_80 (10 bytes).
        let tagLength = (try? decoder.int("srtp-auth")) == 1 ? 4 : 10
        logger.info("room: packets of an SSRC srtpdec has not met are checked against the DTLS-SRTP key (\(tagLength * 8)-bit tags) first")
        return SRTPAuthenticator(masterKey: Array(bytes.prefix(16)), masterSalt: Array(bytes.suffix(14)), tagLength: tagLength)
    }

    /// Why the DTLS peer was refused (its certificate is not the answer's), or nil.
    var peerRefused: String? { peerCheck.refused }

    /// Links a received stream: depayloader ► decoder (concealing losses) ► PeerFeed's tail ► the room's input.
    private func receive(_ pad: Pad, into input: AudioInput) throws(GStreamerError) {
        // PLC, not FEC: Janus answers useinbandfec=1 but AudioBridge adds FEC to the mix only when the
        // join sets expected_loss (default 0), so FEC decoding would only hold a packet (WORKAROUNDS §22).
        let chain = [
            try ElementFactory.make("rtpopusdepay", name: NetworkGraph.Peer.webRTCDepay),
            try ElementFactory.make("opusdec", name: NetworkGraph.Peer.webRTCDecoder, properties: ["plc": true]),
        ] + (try PeerFeed.makeTail(levelInterval: .milliseconds(100)))
        guard let first = chain.first, let sink = chain.last as? AppSink else { return }
        try sender.pipeline.addLinked(chain)
        let token = try PeerFeed.push(from: sink, into: input, counting: counters, logger: logger)
        tokens.withLock { $0.append(token) }
        // The room's audio starts a timeline of its own (a rejoin's too).
        input.reanchor()
        for element in chain.reversed() { try element.syncStateWithParent() }
        try pad.link(to: try first.staticPad("sink"))
        _ = sender.pipeline.recalculateLatency()
    }

    /// Starts the connection and makes its offer once the first RTP caps reached webrtcbin (WORKAROUNDS §26; they
    /// carry the SSRC: an offer without a=ssrc had Janus 1.1.2 drop every packet as "Unknown SSRC"),
    /// then ICE gathers the kiosk's candidates into it (no trickle: the join carries them all).
    func offer() throws(EngineError) -> String {
        try sender.start()
        do {
            let input = webRTC.element.pads.first { $0.direction == .sink }
            let deadline = DispatchTime.now() + RoomPeerConnection.capsTimeout
            while input?.currentCaps?.structure()?.has("ssrc") != true, DispatchTime.now() < deadline { usleep(10_000) }
            guard input?.currentCaps?.structure()?.has("ssrc") == true else {
                throw GStreamerError.failed("no RTP reached webrtcbin within \(RoomPeerConnection.capsTimeout) of the start: the uplink's encoder does not run")
            }
            let offer = try webRTC.createOffer()
            try webRTC.setLocalDescription(offer, type: .offer)
            if gathered.wait(timeout: .now() + RoomPeerConnection.gatheringTimeout) == .timedOut {
                logger.warning("room: ICE gathered no complete set of candidates within 3 s; offering those it has")
            }
            return webRTC.localDescription ?? offer
        } catch let error as GStreamerError {
            throw .gstreamer(error)
        } catch {
            throw .gstreamer(.failed("\(error)"))
        }
    }

    /// Takes Janus's answer: ICE checks start with the candidates in it, then DTLS.
    func accept(answer: String) throws(EngineError) {
        if let codecs = RoomPeerConnection.audioCodecs(in: answer), !codecs.contains("OPUS") {
            let named = codecs.isEmpty ? "no codec" : codecs.joined(separator: ", ")
            throw .badEndpoint("the room's answer", reason: "it switches the audio to \(named), which was not offered: this kiosk speaks Opus only; set the room's audiocodec to opus")
        }
        try peerCheck.expect(answer: answer)
        do { try webRTC.setRemoteDescription(answer, type: .answer) } catch { throw .gstreamer(error) }
    }

    /// The encodings (upper case) of an SDP's first audio section, by its payload types and their
    /// rtpmap lines; nil when it has no audio section.
    static func audioCodecs(in sdp: String) -> [String]? {
        var types: [String]?
        var maps: [String: String] = [:]
        var inAudio = false
        for line in sdp.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("m=") {
                let fields = line.dropFirst(2).split(separator: " ")
                inAudio = types == nil && fields.first == "audio"
                if inAudio { types = fields.dropFirst(3).map(String.init) }
            } else if inAudio, line.hasPrefix("a=rtpmap:") {
                let parts = line.dropFirst("a=rtpmap:".count).split(separator: " ", maxSplits: 1)
                if parts.count == 2, let encoding = parts[1].split(separator: "/").first { maps[String(parts[0])] = encoding.uppercased() }
            }
        }
        return types.map { $0.map { maps[$0] ?? Int($0).flatMap { SessionDescription.staticFormats[$0]?.encoding } ?? "payload type \($0)" } }
    }

    /// Sends one uplink frame (silence fills the time between frames).
    func send(_ frame: UplinkFrame) { sender.send(frame) }

    /// Closes the connection: straight to NULL, no EOS (an EOS before DTLS is up deadlocks webrtcbin 1.22: WEBRTC-NOTES).
    func stop() {
        sender.stop()
        tokens.withLock { $0.removeAll() }
        streamGuard.withLock { $0 = nil }
    }

    /// The connection state now ("new", "connecting", "connected", "disconnected", "failed", "closed").
    var state: String { (try? webRTC.element.enumNick("connection-state")) ?? "unknown" }
}
