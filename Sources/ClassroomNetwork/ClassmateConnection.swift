import ClassroomEngine
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// One classmate's voice from a Janus VideoRoom (an SFU): a receive-only PeerConnection of its own,
/// Janus the offerer, the kiosk answering, the voice played into the classmate's own engine input
/// (`WebRTCReception`: guarded, its own adaptive jitter buffer, PLC and FEC). One per classmate and
/// subscription; a classmate who comes back gets a new one.
///
///     webrtcbin src_0 ► rtpopusdepay ► opusdec (FEC) ► PeerFeed's tail ► appsink ─► AudioInput.push
final class ClassmateConnection: Sendable {
    private let pipeline: Pipeline
    private let webRTC: WebRTCBin
    let reception: WebRTCReception
    private let gathered = DispatchSemaphore(value: 0)
    private let tokens = Mutex<[any AnyObject & Sendable]>([])
    private let running = Atomic<Bool>(false)

    /// Builds the connection for `input`; `onState` hears webrtcbin's connection-state nicks, on its
    /// threads; `onImpostor` why the DTLS peer is not the one Janus's offer named, and `onClosed`
    /// that Janus closed the DTLS transport (the classmate's feed ended). Nothing runs until `answer(offer:)`.
    init(input: AudioInput, jitterBuffer setting: JitterBufferSetting, what: String, logger: Logger, onState: @escaping @Sendable (String) -> Void,
         onImpostor: @escaping @Sendable (String) -> Void, onClosed: @escaping @Sendable () -> Void) throws(EngineError) {
        var initial = JitterBufferPolicy.start
        if case .fixed(let delay) = setting { initial = delay }
        do {
            pipeline = try Pipeline(name: "classmate")
            let element = try ElementFactory.make("webrtcbin", name: NetworkGraph.UplinkSender.webRTC(0), properties: [
                "bundle-policy": .enumNick("max-bundle"), "latency": .int(Int64(initial.milliseconds)),
            ])
            try pipeline.add(element)
            webRTC = try WebRTCBin(element)
        } catch {
            throw .gstreamer(error)
        }
        guard let rtpBin = pipeline.element(named: "rtpbin") else { throw .gstreamer(.failed("webrtcbin has no rtpbin")) }
        reception = try WebRTCReception(webRTC: webRTC, pipeline: pipeline, rtpBin: rtpBin, input: input, jitterBuffer: setting,
                                        forwardErrorCorrection: true, what: what, logger: logger, onJitterBuffer: { _ in }, onImpostor: onImpostor,
                                        onClosed: onClosed)
        let states = WebRTCReception.watch(webRTC, gathered: gathered, onState: onState)
        tokens.withLock { $0 += states }
    }

    /// Starts the connection, takes Janus's offer and returns the answer with the kiosk's candidates
    /// (no trickle). The answer takes the DTLS server's part (`a=setup:passive`): webrtcbin 1.22 as
    /// the client of a Janus that already sends finished its handshake about a second after ICE;
    /// as the server, within milliseconds (docs/WEBRTC-NOTES.md).
    func answer(offer: String) throws(EngineError) -> String {
        if let codecs = RoomPeerConnection.audioCodecs(in: offer), !codecs.contains("OPUS") {
            throw .badEndpoint("the room's offer", reason: "it offers \(codecs.isEmpty ? "no codec" : codecs.joined(separator: ", ")), not Opus: set the room's audiocodec to opus")
        }
        try reception.expect(remote: offer)
        do {
            try pipeline.setState(.playing, waitingUpTo: .seconds(5))
            running.store(true, ordering: .releasing)
            try webRTC.setRemoteDescription(offer, type: .offer)
            let answer = ClassmateConnection.passive(try webRTC.createAnswer())
            try webRTC.setLocalDescription(answer, type: .answer)
            // Past the wait the answer goes with the candidates it has: Janus learns the others from the kiosk's checks (peer-reflexive).
            _ = gathered.wait(timeout: .now() + RoomPeerConnection.gatheringTimeout)
            return webRTC.localDescription ?? answer
        } catch {
            throw .gstreamer(error)
        }
    }

    /// `sdp` with every `a=setup:active` made `a=setup:passive` (an answer to an `actpass` offer may take either).
    static func passive(_ sdp: String) -> String {
        sdp.replacingOccurrences(of: "a=setup:active", with: "a=setup:passive")
    }

    /// Why the DTLS peer was refused, or nil.
    var peerRefused: String? { reception.peerRefused }
    /// Packets of a new SSRC that failed the SRTP key's check.
    var rejectedPackets: Int { reception.rejectedPackets }
    /// What the classmate's jitter buffer holds, once the stream came.
    var jitterBufferDelay: ClockTime? { reception.jitterBuffer.withLock { $0?.delay } }
    /// The connection state now.
    var state: String { (try? webRTC.element.enumNick("connection-state")) ?? "unknown" }

    /// Closes the connection: straight to NULL (an EOS before DTLS is up deadlocks webrtcbin 1.22).
    func stop() {
        if running.exchange(false, ordering: .acquiringAndReleasing) { _ = try? pipeline.setState(.null) }
        tokens.withLock { $0.removeAll() }
        reception.stop()
    }
}
