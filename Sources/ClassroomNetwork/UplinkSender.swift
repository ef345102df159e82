import ClassroomEngine
import Dispatch
import GStreamer
import Logging
import Synchronization

/// Sends the processed microphone somewhere — RTP peers or a conferencing server, a WAV file —
/// without the integrator writing an encoder pipeline: hand it every `UplinkFrame` the
/// `SessionController` delivers.
///
///     appsrc ► audiomixer (live) ► tee ┬► queue ► opusenc ► rtpopuspay [► srtpenc] ► udpsink
///                                      ├► queue ► audioresample ► 8 kHz ► mulawenc|alawenc ► rtppcmupay|rtppcmapay ► udpsink
///                                      ├► queue ► opusenc ► rtpopuspay ► webrtcbin (a room's PeerConnection)
///                                      └► queue ► wavenc ► filesink
///
/// The uplink never goes absent: while no frames come (microphone off) the live mixer fills the
/// time with silence, so receivers keep their timing and a WAV stays as long as the class.
public final class UplinkSender: Sendable {
    /// Where it sends.
    public let destinations: [UplinkDestination]
    /// Internal: a WebRTC room adds its receiving chain to it, beside the webrtcbin.
    let pipeline: Pipeline
    private let source: AppSource
    /// On the mixer's 10 ms output grid: each frame goes out as soon as it arrives.
    private let timeline = PushTimeline(tolerance: .milliseconds(40), grid: EngineGraph.frameDuration)
    private let frames = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let subscription = Mutex<BusSubscription?>(nil)
    /// Each destination's branch, first element (where EOS is sent to finalise it) to last, and
    /// the tee pad that feeds it.
    private let branches: [(elements: [Element], teePad: Pad)]
    private let tee: Element
    /// WAV branches whose file could not be written (a full disk): they drop what reaches them,
    /// so the other destinations go on, and leave the pipeline at the stop.
    private let failed = Mutex<Set<Int>>([])
    /// The probes that make a failed WAV branch drop instead of stopping the tee.
    private let guards: [PadProbe]
    /// The probes that stamp each SRTP packet with the wall clock (`RTPFreshness`), and each frame
    /// a room's PeerConnection encodes with its audio level.
    private let stamps: [PadProbe]
    private let logger: Logger

    /// How long the mixer waits for a late frame before filling its time with silence. Not a wait
    /// for frames that come: one on the mixer's grid leaves it at once (0.05 ms median from the push,
    /// as without a mixer; at latency 0 a frame stamped at its arrival was already late and became
    /// silence), so the mixer stays for its no-gap guarantee (WORKAROUNDS §24).
    public static let frameJitter = ClockTime.milliseconds(20)

    /// RFC 6464's client-to-mixer audio level: a VideoRoom reads it to say who talks.
    static let audioLevelExtension = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

    /// Builds the sender; nothing is sent until `start`. With `socketOf`, a started RTP receiver
    /// (`PeerFeed.rtpReceiver`), RTP is sent from the socket it receives on: servers such as Janus
    /// connect their socket to the participant's address and drop packets from any other port.
    public init(destinations: [UplinkDestination], sendingFrom socketOf: Element? = nil, logger: Logger) throws(EngineError) {
        guard !destinations.isEmpty else { throw .uplinkFailed("no destination was given") }
        self.destinations = destinations
        self.logger = logger
        do {
            pipeline = try Pipeline(name: NetworkGraph.UplinkSender.pipeline)
            pipeline.useClock(try Clock.system())
            source = try AppSource.make(name: NetworkGraph.UplinkSender.input)
            try source.configure(audio: EngineGraph.uplinkFormat, isLive: true, doTimestamp: false,
                                 limits: .init(time: .milliseconds(200)), whenFull: .dropOldest)
            let head: [Element] = [
                source,
                try ElementFactory.make("audiomixer", name: NetworkGraph.UplinkSender.mixer, properties: [
                    "force-live": true, "latency": .time(UplinkSender.frameJitter),
                    "output-buffer-duration": .time(EngineGraph.frameDuration),
                ]),
                try ElementFactory.make("capsfilter", name: NetworkGraph.UplinkSender.format, properties: ["caps": .caps(EngineGraph.uplinkFormat.caps)]),
                try ElementFactory.make("tee", name: NetworkGraph.UplinkSender.tee, properties: ["allow-not-linked": true]),
            ]
            try pipeline.addLinked(head)
            guard let tee = head.last else { throw GStreamerError.failed("no tee") }
            self.tee = tee
            var branches: [(elements: [Element], teePad: Pad)] = []
            var guards: [PadProbe] = [], stamps: [PadProbe] = []
            for (index, destination) in destinations.enumerated() {
                let branch = try UplinkSender.branch(for: destination, number: index, socketOf: socketOf)
                try pipeline.addLinked(branch)
                guard let first = branch.first else { continue }
                let teePad = try tee.requestPad("src_%u")
                try teePad.link(to: try first.staticPad("sink"))
                branches.append((branch, teePad))
                if case .wav = destination, let guarded = UplinkSender.dropWhenFailed(first) { guards.append(guarded) }
                if case .rtp(let endpoint) = destination, endpoint.key != nil,
                   let payloader = branch.first(where: { $0.name == NetworkGraph.UplinkSender.payloader(index) }),
                   let stamp = try payloader.staticPad("sink").addWallClockStamp() {
                    stamps.append(stamp)
                }
                if case .webRTC(_, _, true) = destination,
                   let encoder = branch.first(where: { $0.name == NetworkGraph.UplinkSender.opusEncoder(index) }),
                   let levels = try encoder.staticPad("sink").addAudioLevelMarker() {
                    stamps.append(levels)
                }
            }
            self.branches = branches
            self.guards = guards
            self.stamps = stamps
        } catch let error as GStreamerError {
            throw .gstreamer(error)
        } catch {
            throw .uplinkFailed("\(error)")
        }
    }

    /// The elements after the tee for one destination, first to last.
    private static func branch(for destination: UplinkDestination, number: Int, socketOf: Element?) throws(GStreamerError) -> [Element] {
        // A slow branch drops its oldest audio rather than holding the others up.
        let queue = try ElementFactory.make("queue", name: NetworkGraph.UplinkSender.queue(number), properties: [
            "max-size-time": .time(.milliseconds(200)), "max-size-buffers": 0, "max-size-bytes": 0, "leaky": "downstream",
        ])
        switch destination {
        case .wav(let path):
            return [queue, try ElementFactory.make("wavenc", name: NetworkGraph.UplinkSender.wavEncoder(number)),
                    try ElementFactory.make("filesink", name: NetworkGraph.UplinkSender.file(number), properties: ["location": .string(path), "sync": false, "async": false])]
        case .discard:
            return [queue, try ElementFactory.make("fakesink", name: NetworkGraph.UplinkSender.discard(number), properties: ["sync": false, "async": false])]
        case .webRTC(let latency, let packetTime, let audioLevels):
            let payloader = try ElementFactory.make("rtpopuspay", name: NetworkGraph.UplinkSender.payloader(number), properties: ["pt": .int(Int64(UplinkSender.webRTCPayloadType))])
            // The payloader writes each packet's level from the meta the encoder's probe puts on its
            // input, and its caps carry the extension, which webrtcbin offers as an a=extmap.
            if audioLevels { try payloader.addRTPHeaderExtension(uri: UplinkSender.audioLevelExtension, id: 1) }
            // Linked, not add-transceiver: 1.22.0 then offers a second m-line, which Janus rejects (WEBRTC-NOTES).
            return [queue,
                    try UplinkSender.opusEncoder(packetTime: packetTime, forwardErrorCorrection: true, number: number),
                    payloader,
                    try ElementFactory.make("capsfilter", name: NetworkGraph.UplinkSender.rtpFormat(number), properties: [
                        "caps": .caps(try Caps("application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,encoding-params=(string)2,payload=\(UplinkSender.webRTCPayloadType),useinbandfec=(string)1")),
                    ]),
                    try ElementFactory.make("webrtcbin", name: NetworkGraph.UplinkSender.webRTC(number), properties: [
                        "bundle-policy": .enumNick("max-bundle"), "latency": .int(Int64(latency.milliseconds)),
                    ])]
        case .rtp(let endpoint):
            var sinkProperties: ElementProperties = [
                "host": .string(endpoint.address), "port": .int(Int64(endpoint.port)), "sync": false, "async": false,
            ]
            if let localPort = endpoint.localPort {
                // Sent from the port the server was told, from one socket: Janus connects its socket to that address.
                sinkProperties.append("bind-address", .string(endpoint.localAddress ?? "0.0.0.0"))
                sinkProperties.append("bind-port", .int(Int64(localPort)))
            }
            let sink = try ElementFactory.make("udpsink", name: NetworkGraph.UplinkSender.udp(number), properties: sinkProperties)
            if let socketOf {
                try sink.set("socket", from: socketOf, property: "used-socket")
                try sink.set("close-socket", false)   // the receiver owns it
            }
            let packet = ClockTime.milliseconds(endpoint.packetTime)
            // SRTP packets carry the sender's wall clock (RFC 6051 NTP-64, authenticated with them):
            // a receiver refuses a stream recorded in an earlier class and replayed (`RTPFreshness`).
            let protection = try endpoint.key.map { key throws(GStreamerError) in
                [try ElementFactory.make("capsfilter", name: NetworkGraph.UplinkSender.rtpFormat(number), properties: [
                    "caps": .caps(try Caps("application/x-rtp,extmap-\(RTPFreshness.extensionID)=(string)\(RTPFreshness.uri)")),
                ]), try UplinkSender.srtpEncoder(key, number: number)]
            } ?? []
            switch endpoint.codec {
            case .opus:
                return [queue,
                        try UplinkSender.opusEncoder(packetTime: endpoint.packetTime, forwardErrorCorrection: endpoint.forwardErrorCorrection, number: number),
                        try ElementFactory.make("rtpopuspay", name: NetworkGraph.UplinkSender.payloader(number), properties: ["pt": .int(Int64(endpoint.payloadType))])]
                    + protection + [sink]
            case .pcmu, .pcma:
                let law = endpoint.codec == .pcmu ? "mulaw" : "alaw"
                return [queue,
                        try ElementFactory.make("audioresample", name: NetworkGraph.UplinkSender.resample(number)),
                        try ElementFactory.make("capsfilter", name: NetworkGraph.UplinkSender.narrowband(number), properties: ["caps": .caps(try Caps("audio/x-raw,rate=8000,channels=1"))]),
                        try ElementFactory.make("\(law)enc", name: NetworkGraph.UplinkSender.lawEncoder(law, number)),
                        try ElementFactory.make(endpoint.codec == .pcmu ? "rtppcmupay" : "rtppcmapay", name: NetworkGraph.UplinkSender.payloader(number), properties: [
                            "pt": .int(Int64(endpoint.payloadType)), "min-ptime": .int(Int64(packet.nanoseconds)), "max-ptime": .int(Int64(packet.nanoseconds)),
                        ])]
                    + protection + [sink]
            }
        }
    }

    /// opusenc tuned for speech, one frame per packet of `packetTime` ms; with FEC each packet
    /// also carries a coarse copy of the previous one, which a receiver decodes when that one is lost.
    private static func opusEncoder(packetTime: Int, forwardErrorCorrection: Bool, number: Int) throws(GStreamerError) -> Element {
        var properties: ElementProperties = ["frame-size": .enumNick("\(packetTime)"), "audio-type": .enumNick("voice")]
        if forwardErrorCorrection {
            properties.append("inband-fec", true)
            // opusenc adds the FEC copy only when told to expect some loss.
            properties.append("packet-loss-percentage", .int(Int64(RTPEndpoint.expectedLossPercentage)))
        }
        return try ElementFactory.make("opusenc", name: NetworkGraph.UplinkSender.opusEncoder(number), properties: properties)
    }

    /// srtpenc with `key` for AES_CM_128_HMAC_SHA1_80, RTP and RTCP alike.
    private static func srtpEncoder(_ key: SRTPKey, number: Int) throws(GStreamerError) -> Element {
        let encoder = try ElementFactory.make("srtpenc", name: NetworkGraph.UplinkSender.encrypt(number), properties: [
            "rtp-cipher": .enumNick("aes-128-icm"), "rtp-auth": .enumNick("hmac-sha1-80"),
            "rtcp-cipher": .enumNick("aes-128-icm"), "rtcp-auth": .enumNick("hmac-sha1-80"),
        ])
        try encoder.set("key", bytes: key.material)
        return encoder
    }

    /// A failed sink returns an error to its queue, and the queue to the tee, which would stop
    /// every destination: once the queue's own push failed, what reaches the queue is dropped.
    private static func dropWhenFailed(_ queue: Element) -> PadProbe? {
        guard let input = try? queue.staticPad("sink"), let output = try? queue.staticPad("src") else { return nil }
        return input.addProbe(.dataDownstream) { _ in
            switch output.lastFlowError {
            case .error, .notNegotiated: return .drop
            default: return .ok
            }
        }
    }

    /// Starts sending (silence until frames come). Throws when a destination cannot be opened.
    /// A WAV destination whose file cannot be written later (a full disk) is said to `onFailure`,
    /// once, and the other destinations go on.
    public func start(onFailure: @escaping @Sendable (_ destination: UplinkDestination, _ message: String) -> Void = { _, _ in }) throws(EngineError) {
        let firstError = FirstFailure<(GLibError, String?)>()
        let logger = self.logger
        let files = Dictionary(destinations.indices.map { (NetworkGraph.UplinkSender.file($0), $0) }) { first, _ in first }
        let followers = Dictionary(destinations.indices.flatMap { [(NetworkGraph.UplinkSender.queue($0), $0), (NetworkGraph.UplinkSender.wavEncoder($0), $0)] }) { first, _ in first }
        let destinations = self.destinations
        let token = pipeline.bus.subscribe { [weak self] message in
            firstError.record(message)
            guard case .error(let error, let debug) = message.view, let self else { return }
            let source = message.source ?? "?"
            // What the queue and encoder of a failed file say next is the same failure.
            if let number = followers[source], self.failed.withLock({ $0.contains(number) }) { return }
            logger.error("uplink: \(source): \(error.message)", metadata: ["debug": "\(debug ?? "")"])
            if let number = files[source], self.failed.withLock({ $0.insert(number).inserted }) { onFailure(destinations[number], error.message) }
        }
        subscription.withLock { $0 = token }
        do {
            // The first microphone frame must not send the output back to 0 (WORKAROUNDS §36).
            try pipeline.element(named: NetworkGraph.UplinkSender.mixer)?.fixAggregatorStartAtZero()
            // The live mixer gets its base time before the clock (WORKAROUNDS §29).
            pipeline.startRunningTimeNow()
            try pipeline.setState(.playing, waitingUpTo: .seconds(5))
        } catch {
            let reason = firstError.wait(upTo: .milliseconds(500))
            _ = try? pipeline.setState(.null)
            subscription.withLock { $0 = nil }
            throw .uplinkFailed("it could not start: \(reason?.0.message ?? "\(error)")")
        }
        running.store(true, ordering: .releasing)
    }

    /// Sends one processed frame (call it from the `SessionController`'s uplink callback).
    /// Frames arriving while stopped are ignored.
    public func send(_ frame: UplinkFrame) {
        guard running.load(ordering: .acquiring), !frame.samples.isEmpty, let now = pipeline.currentRunningTime else { return }
        let duration = ClockTime.frames(frame.samples.count, rate: EngineGraph.uplinkFormat.rate)
        do {
            let place = timeline.anchor(now: now, duration: duration)
            if try source.push(frame.samples, pts: place.pts, discontinuity: place.discont) == .queuedDroppingOldest {
                dropped.add(1, ordering: .relaxed)
            }
            frames.add(1, ordering: .relaxed)
        } catch {
            if dropped.add(1, ordering: .relaxed).newValue == 1 { logger.warning("uplink: a frame was refused: \(error)") }
        }
    }

    /// Stops sending; a WAV destination is finalised (waits up to 2 s for it).
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        // A failed file's branch leaves first: its sink never ends, and the pipeline's EOS waits for every sink.
        let failedNow = failed.withLock { $0 }
        for number in failedNow.sorted() where branches.indices.contains(number) { detach(branches[number]) }
        let remaining = branches.indices.filter { !failedNow.contains($0) }
        let needsEnd = remaining.contains { if case .wav = destinations[$0] { return true }; return false }
        if needsEnd {
            // The force-live mixer never ends: EOS goes into every branch, and the pipeline posts EOS once all sinks have it.
            let heads = remaining.compactMap { branches[$0].elements.first }
            let done = pipeline.bus.waitForMessage(timeout: .seconds(2), after: {
                for head in heads { if let eos = try? Event.endOfStream(), let pad = try? head.staticPad("sink") { _ = pad.send(eos) } }
            }) { message in
                if case .endOfStream = message.view { return true }
                return false
            }
            if done == nil { logger.warning("uplink: the WAV did not confirm its end within 2 s; the file may lack its final header") }
        }
        _ = try? pipeline.setState(.null)
        subscription.withLock { $0 = nil }
    }

    /// Unlinks a branch from the tee and removes it (the tee goes on: `allow-not-linked`).
    private func detach(_ branch: (elements: [Element], teePad: Pad)) {
        if let head = branch.elements.first, let input = try? head.staticPad("sink") { branch.teePad.unlink(from: input) }
        tee.releaseRequestPad(branch.teePad)
        for element in branch.elements {
            _ = try? element.setState(.null)
            try? pipeline.remove(element)
        }
    }

    /// Frames handed over so far.
    public var framesSent: Int { frames.load(ordering: .relaxed) }
    /// Frames dropped because the sender fell behind.
    public var framesDropped: Int { dropped.load(ordering: .relaxed) }
    /// How many times the frames arrived too far from where the previous ones ended (a break in the uplink).
    public var resyncs: Int { timeline.resyncCount }
    /// The payload type offered for Opus in a PeerConnection.
    static let webRTCPayloadType = 111

    /// The webrtcbin of the first `.webRTC` destination.
    var webRTCBin: WebRTCBin? {
        guard let number = destinations.firstIndex(where: { if case .webRTC = $0 { return true }; return false }),
              let element = pipeline.element(named: NetworkGraph.UplinkSender.webRTC(number)) else { return nil }
        return try? WebRTCBin(element)
    }

    /// The session descriptions of the RTP destinations, in order, with no SRTP key: fit to be shown.
    public var sessionDescriptions: [String] {
        destinations.compactMap { if case .rtp(let endpoint) = $0 { return endpoint.sessionDescription(revealingKey: false) }; return nil }
    }

    deinit { stop() }
}
