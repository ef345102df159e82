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
    /// What the connection receives, guarded and played (nothing for a publisher to an SFU).
    let reception: WebRTCReception
    private let gathered = DispatchSemaphore(value: 0)
    private let tokens = Mutex<[any AnyObject & Sendable]>([])
    private let logger: Logger

    /// Builds the connection; `input` is where the room's mix plays (nil: the connection only
    /// publishes, as to a VideoRoom), and the uplink goes out as Opus packets of `packetTime` ms,
    /// each with its audio level (RFC 6464) when `audioLevels`.
    /// `onState` hears webrtcbin's connection-state nicks ("connecting", "connected", "failed" …)
    /// and `onJitterBuffer` each move of an adaptive jitter buffer, on webrtcbin's threads;
    /// `onImpostor` why the DTLS peer is not the one the answer named, and `onClosed` that Janus
    /// closed the DTLS transport, each on a thread of its own. Nothing runs until `offer()`.
    init(input: AudioInput?, jitterBuffer setting: JitterBufferSetting, packetTime: Int = 20, audioLevels: Bool = false, logger: Logger, onState: @escaping @Sendable (String) -> Void,
         onJitterBuffer: @escaping @Sendable (ClockTime) -> Void, onImpostor: @escaping @Sendable (String) -> Void,
         onClosed: @escaping @Sendable () -> Void) throws(EngineError) {
        self.logger = logger
        var initial = JitterBufferPolicy.start
        if case .fixed(let delay) = setting { initial = delay }
        sender = try UplinkSender(destinations: [.webRTC(latency: initial, packetTime: packetTime, audioLevels: audioLevels)], logger: logger)
        guard let webRTC = sender.webRTCBin, let rtpBin = sender.pipeline.element(named: "rtpbin") else { throw .gstreamer(.failed("the uplink has no webrtcbin")) }
        self.webRTC = webRTC
        // The room's audio is decoded and pushed on the sender's threads (the uplink shares them).
        reception = try WebRTCReception(webRTC: webRTC, pipeline: sender.pipeline, rtpBin: rtpBin, input: input, jitterBuffer: setting,
                                        forwardErrorCorrection: false, what: "the room's audio", logger: logger,
                                        onJitterBuffer: onJitterBuffer, onImpostor: onImpostor, onClosed: onClosed)
        // Nothing is sent before the DTLS peer is verified.
        if let uplink = webRTC.element.pads.first(where: { $0.direction == .sink }) { reception.hold(uplink: uplink) }
        let states = WebRTCReception.watch(webRTC, gathered: gathered, onState: onState)
        tokens.withLock { $0 += states }
    }

    /// What the connection received.
    var counters: PeerCounters { reception.counters }
    /// What the room's jitter buffer holds, once the stream came.
    var jitterBufferDelay: ClockTime? { reception.jitterBuffer.withLock { $0?.delay } }
    /// Packets of a new SSRC that failed the SRTP key's check before srtpdec.
    var rejectedPackets: Int { reception.rejectedPackets }
    /// Why the DTLS peer was refused (its certificate is not the answer's), or nil.
    var peerRefused: String? { reception.peerRefused }

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
        try reception.expect(remote: answer)
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
        reception.stop()
    }

    /// The connection state now ("new", "connecting", "connected", "disconnected", "failed", "closed").
    var state: String { (try? webRTC.element.enumNick("connection-state")) ?? "unknown" }
}
