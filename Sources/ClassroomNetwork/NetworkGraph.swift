/// Names of the network side's graphs, declared once as EngineGraph does for the engine's: the
/// element names are what bus messages, level meters and lookups match on.
public enum NetworkGraph {
    /// A peer feed's pipeline (one per peer).
    public enum Peer {
        public static func pipeline(_ id: String) -> String { "peer-\(id)" }
        /// The common tail: queue ► convert ► resample ► format ► level ► appsink.
        public static let queue = "peer-queue", convert = "peer-convert", resample = "peer-resample", format = "peer-format"
        public static let level = "peer-level", sink = "peer-sink"
        /// A file or network stream's decoder.
        public static let decode = "peer-decode"
        /// RTP (rtp://, srtp:// or an SDP file): udpsrc [► srtpdec] ► rtpptdemux ► jitter buffer ► depayloader ► decoder.
        public static let udp = "peer-udp", decrypt = "peer-srtpdec", payloadDemux = "peer-ptdemux", jitter = "peer-jitter", depay = "peer-depay", decoder = "peer-decoder"
        /// A WebRTC room's received stream, in its PeerConnection's pipeline: webrtcbin ► depayloader ► decoder ► the common tail.
        public static let webRTCDepay = "room-depay", webRTCDecoder = "room-decoder"
    }

    /// The uplink sender's pipeline: appsrc ► mixer ► format ► tee, then one numbered branch per destination.
    public enum UplinkSender {
        public static let pipeline = "uplink-sender"
        public static let input = "uplink-in", mixer = "uplink-mixer", format = "uplink-format", tee = "uplink-tee"
        public static func queue(_ number: Int) -> String { "uplink-queue-\(number)" }
        public static func wavEncoder(_ number: Int) -> String { "uplink-wavenc-\(number)" }
        public static func file(_ number: Int) -> String { "uplink-file-\(number)" }
        public static func discard(_ number: Int) -> String { "uplink-discard-\(number)" }
        public static func udp(_ number: Int) -> String { "uplink-udp-\(number)" }
        public static func opusEncoder(_ number: Int) -> String { "uplink-opusenc-\(number)" }
        public static func payloader(_ number: Int) -> String { "uplink-pay-\(number)" }
        public static func encrypt(_ number: Int) -> String { "uplink-srtpenc-\(number)" }
        /// A PeerConnection's RTP caps and its webrtcbin.
        public static func rtpFormat(_ number: Int) -> String { "uplink-rtp-format-\(number)" }
        public static func webRTC(_ number: Int) -> String { "uplink-webrtc-\(number)" }
        public static func resample(_ number: Int) -> String { "uplink-resample-\(number)" }
        public static func narrowband(_ number: Int) -> String { "uplink-8k-\(number)" }
        /// The G.711 encoder (`mulaw` or `alaw`).
        public static func lawEncoder(_ law: String, _ number: Int) -> String { "uplink-\(law)enc-\(number)" }
    }
}
