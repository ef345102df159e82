import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization
import TLS

/// What a kiosk's webrtcbin receives from a Janus room, held to account and played into an engine
/// input: libnice neither asks a UPnP gateway to open ports nor offers TCP candidates (a LAN's rogue
/// gateway would see every join and put its own address into the offer); nothing is played (or, with
/// `hold(uplink:)`, sent) before the DTLS peer is the one the signalling named; an SSRC reaches
/// srtpdec only once its packets authenticate (`SRTPStreamGuard`); each received stream is decoded
/// with loss concealment through an adaptive jitter buffer.
///
///     webrtcbin src_N ► rtpopusdepay ► opusdec ► PeerFeed's tail ► appsink ─► AudioInput.push
final class WebRTCReception: Sendable {
    let counters = PeerCounters()
    /// The stream's jitter buffer (webrtcbin's rtpbin makes it with the stream), fixed or following the arrival jitter.
    let jitterBuffer = Mutex<AdaptiveJitterBuffer?>(nil)
    /// What the messages call the audio ("the room's audio", "kiosk-7's voice").
    private let what: String
    /// Whether a loss is rebuilt from the next packet's in-band FEC (`OpusFECDecoder`) or concealed only.
    private let decodesFEC: Bool
    private let logger: Logger
    private let pipeline: Pipeline
    private let webRTC: WebRTCBin
    private let tokens = Mutex<[any AnyObject & Sendable]>([])
    /// Holds the media until the DTLS peer's certificate matches the server's description.
    private let peerCheck: DTLSFingerprintCheck
    /// The transport's dtlsdec, whose `decoder-key` the received packets are checked against.
    private let dtlsDecoder = Mutex<Element?>(nil)
    /// What keeps packets that fail the key's check from srtpdec, once webrtcbin made its srtpdec.
    private let streamGuard = Mutex<SRTPStreamGuard?>(nil)
    /// The DTLS transport: 1 once connected, 2 once closed after that (said once).
    private let dtlsStage = Atomic<Int>(0)
    private let onClosed: @Sendable () -> Void

    /// Guards `webRTC` (in `pipeline`, with `rtpBin` inside it) and plays what it receives into
    /// `input` (nil: a connection that only sends), decoding the sender's in-band FEC from the first
    /// loss on when `forwardErrorCorrection`. `onJitterBuffer` hears each move of an adaptive
    /// jitter buffer, on webrtcbin's threads; `onImpostor` why the DTLS peer is not the one named,
    /// and `onClosed` that the server closed the DTLS transport once it was up (nothing more comes
    /// on it), each on a thread of its own.
    init(webRTC: WebRTCBin, pipeline: Pipeline, rtpBin: Element, input: AudioInput?, jitterBuffer setting: JitterBufferSetting,
         forwardErrorCorrection: Bool, what: String,
         logger: Logger, onJitterBuffer: @escaping @Sendable (ClockTime) -> Void, onImpostor: @escaping @Sendable (String) -> Void,
         onClosed: @escaping @Sendable () -> Void) throws(EngineError) {
        self.webRTC = webRTC
        self.pipeline = pipeline
        self.what = what
        self.logger = logger
        decodesFEC = forwardErrorCorrection
        self.onClosed = onClosed
        peerCheck = DTLSFingerprintCheck(onMismatch: onImpostor)
        guard let input else { try guardTransports(); return }
        // The audio is decoded and pushed on the pipeline's threads, real-time but for dtlsenc's:
        // its task carries only the handshake, and 1.22's spins while its pad deactivates. At
        // real-time priority it keeps the deactivating thread off every core until the kernel's
        // real-time throttle, and the whole machine stalls with it (WORKAROUNDS §42).
        input.scheduleFeeder(pipeline) { owner in !owner.hasPrefix("dtlsenc") }
        let received = webRTC.element.onPadAdded { [weak self] pad in
            guard pad.direction == .source, let self else { return }
            do {
                try receive(pad, into: input)
            } catch {
                logger.error("room: \(what) cannot be decoded: \(error)")
            }
        }
        let counters = self.counters
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
                    logger.info("room: the jitter buffer of \(what) now holds \(delay.milliseconds) ms")
                    onJitterBuffer(delay)
                }
                jitterBuffer.withLock { $0 = control }
                if let probe = try control.watch() { tokens.withLock { $0.append(probe) } }
            } catch {
                logger.warning("room: the jitter buffer of \(what) stays as webrtcbin made it: \(error)")
            }
        }
        tokens.withLock { $0 += [received, messages, jitterBuffers] }
        try guardTransports()
    }

    /// Holds what goes out through webrtcbin's `pad` (the uplink's sink pad) until the DTLS peer is verified.
    func hold(uplink pad: Pad) {
        if let held = peerCheck.hold(pad) { tokens.withLock { $0.append(held) } }
    }

    /// Takes the fingerprint the server's description names (its answer, or its offer).
    func expect(remote sdp: String) throws(EngineError) { try peerCheck.expect(remote: sdp) }

    /// Why the DTLS peer was refused (its certificate is not the one named), or nil.
    var peerRefused: String? { peerCheck.refused }

    /// Packets of a new SSRC that failed the SRTP key's check before srtpdec.
    var rejectedPackets: Int { streamGuard.withLock { $0?.refused.load(ordering: .relaxed) } ?? 0 }

    /// Hands `onState` webrtcbin's connection-state nicks and signals `gathered` when ICE gathering
    /// completes (an answer or offer without trickle waits for it); the handlers live as long as the tokens.
    static func watch(_ webRTC: WebRTCBin, gathered: DispatchSemaphore, onState: @escaping @Sendable (String) -> Void) -> [SignalHandler] {
        webRTC.onChange(of: ["connection-state", "ice-gathering-state"]) { property, nick in
            if property == "ice-gathering-state" {
                if nick == "complete" { gathered.signal() }
            } else {
                onState(nick)
            }
        }
    }

    /// Lets go of the probes and signal handlers (the pipeline is stopped by its owner).
    func stop() {
        tokens.withLock { $0.removeAll() }
        streamGuard.withLock { $0 = nil }
    }

    private func guardTransports() throws(EngineError) {
        do {
            let agent = try webRTC.element.object("ice-agent")
            try agent?.set("ice-tcp", false)
            try agent?.set("upnp", false, onObjectIn: "agent")
        } catch {
            throw .gstreamer(error)
        }
        let added = webRTC.element.onDeepElementAdded { [weak self] element in
            guard let self else { return }
            switch element.factoryName {
            case "dtlsdec":
                let watch = peerCheck.watch(element)
                let closing = element.onNotify("connection-state") { [weak self, weak element] in
                    guard let self, let nick = try? element?.enumNick("connection-state") else { return }
                    if nick == "connected" { dtlsStage.store(1, ordering: .relaxed) }
                    guard nick == "closed", dtlsStage.compareExchange(expected: 1, desired: 2, ordering: .relaxed).exchanged else { return }
                    DispatchQueue.global().async { [onClosed] in onClosed() }
                }
                tokens.withLock { $0 += [watch, closing] }
                dtlsDecoder.withLock { $0 = element }
            case "srtpdec":
                do {
                    // Only the address ICE chose reaches srtpdec (libnice drops other sources): a packet failing the key's check there is forged.
                    let streams = try SRTPStreamGuard(element, key: { [weak self] in self?.receiveKey() }, onFirstRefusal: { [logger, what] in
                        logger.warning("room: packets that fail SRTP authentication arrive from the room's media address (\(what)): someone on the network forges them; they are dropped, and counted as rejected_packets in the room's status")
                    })
                    streamGuard.withLock { $0 = streams }
                    if let held = try peerCheck.hold(element.staticPad("rtp_src")) { tokens.withLock { $0.append(held) } }
                } catch {
                    logger.error("room: the received media of \(what) cannot be guarded: \(error)")
                }
            default:
                break
            }
        }
        tokens.withLock { $0.append(added) }
    }

    /// The key the DTLS handshake gave for what is received, as a tag check; nil before the handshake.
    private func receiveKey() -> SRTPAuthenticator? {
        guard let decoder = dtlsDecoder.withLock({ $0 }), let bytes = try? decoder.bufferBytes("decoder-key"), bytes.count == 30 else { return nil }
        // GstDtlsSrtpAuth: 1 is HMAC_SHA1_32 (a 4-byte tag), 2 HMAC_SHA1_80 (10 bytes).
        let tagLength = (try? decoder.int("srtp-auth")) == 1 ? 4 : 10
        logger.info("room: packets of an SSRC srtpdec has not met are checked against the DTLS-SRTP key (\(tagLength * 8)-bit tags) first")
        return SRTPAuthenticator(masterKey: Array(bytes.prefix(16)), masterSalt: Array(bytes.suffix(14)), tagLength: tagLength)
    }

    /// Links a received stream: depayloader ► decoder (concealing losses) ► PeerFeed's tail ► the input.
    private func receive(_ pad: Pad, into input: AudioInput) throws(GStreamerError) {
        let decoder: Element
        if decodesFEC {
            // A classmate's own packets carry its FEC (a VideoRoom forwards them as sent): from the
            // first loss on, one packet is held to rebuild the next losses (`OpusFECDecoder`).
            let opus = try OpusFECDecoder(name: NetworkGraph.Peer.webRTCDecoder) { [logger, what] packet in
                logger.info("room: \(what) lost a packet; its decoder now holds one (\(packet.milliseconds) ms) to rebuild the next losses from FEC")
            }
            tokens.withLock { $0.append(opus) }
            decoder = opus.element
        } else {
            // PLC, not FEC: AudioBridge adds FEC to its mix only when the join sets expected_loss
            // (default 0), so FEC decoding would only hold a packet (WORKAROUNDS §22).
            decoder = try ElementFactory.make("opusdec", name: NetworkGraph.Peer.webRTCDecoder, properties: ["plc": true])
        }
        let chain = [try ElementFactory.make("rtpopusdepay", name: NetworkGraph.Peer.webRTCDepay), decoder]
            + (try PeerFeed.makeTail(levelInterval: .milliseconds(100)))
        guard let first = chain.first, let sink = chain.last as? AppSink else { return }
        try pipeline.addLinked(chain)
        let token = try PeerFeed.push(from: sink, into: input, counting: counters, logger: logger)
        tokens.withLock { $0.append(token) }
        // The audio starts a timeline of its own (a rejoin's too).
        input.reanchor()
        for element in chain.reversed() { try element.syncStateWithParent() }
        try pad.link(to: try first.staticPad("sink"))
        _ = pipeline.recalculateLatency()
    }
}
