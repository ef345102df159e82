import ClassroomEngine
import GStreamer

/// The RTP receiver of rtp:// and SDP feeds: one UDP port bound where the feed says, a latch that
/// lets only one sender's stream through, a jitter buffer, and the depayloader and decoder for its
/// encoding.
extension PeerFeed {
    /// What rtp:// feeds carry: Opus on a dynamic payload type.
    static let opus = SessionDescription.Format(payloadType: 96, encoding: "OPUS", clockRate: 48_000, channels: 2)

    /// The latch an RTP source plays through; nil for files and network URIs.
    /// SRTP feeds latch only onto a stream that is not a replay from an earlier class (`RTPFreshness`).
    static func latch(for source: PeerSource) -> RTPLatch? {
        let feed = source.description
        let fresh: @Sendable ([UInt8]) -> String? = { RTPFreshness.refusal(of: $0, on: feed) }
        switch source {
        case .rtp(_, _, let pinned?, let key):
            return RTPLatch(accepting: .only(pinned, pinnedBy: "?pt=\(pinned)"), feed: feed, admits: key == nil ? nil : fresh)
        case .rtp(_, _, nil, let key):
            return RTPLatch(accepting: .anyDynamic, feed: feed, admits: key == nil ? nil : fresh)
        case .sessionDescription(let description):
            let type = description.formats.first?.payloadType ?? 0
            return RTPLatch(accepting: .only(type, pinnedBy: "the payload type its SDP describes"), feed: "\(feed)'s port \(description.port)",
                            admits: description.key == nil ? nil : fresh)
        case .file, .network:
            return nil
        }
    }

    /// udpsrc (bound to `address:port`) [► srtpdec] ─latch► rtpptdemux ► rtpjitterbuffer ► depayloader ► decoder ► `entryPad`.
    ///
    /// rtpptdemux puts the payload type the latch let through into the caps: negotiation fixates
    /// udpsrc's caps to payload 96, and the jitter buffer drops any other type as "no clock-rate".
    /// With a key the latch judges only what passed SRTP authentication: the header is in the
    /// clear, so a stranger's forged packets, judged first, would latch and lock the teacher out.
    func buildRTP(address: String, port: Int, format: SessionDescription.Format, key: SRTPKey?, into entryPad: Pad) throws(GStreamerError) -> Element {
        var caps = "application/x-\(key == nil ? "rtp" : "srtp"),media=audio,clock-rate=\(format.clockRate),encoding-name=\(format.encoding)"
        if let key { caps += PeerFeed.srtpFields(key) }
        if format.encoding == "L16" { caps += ",channels=\(format.channels),encoding-params=(string)\(format.channels)" }
        if case .only(let type, _)? = latch?.accepting { caps += ",payload=\(type)" }
        let udp = try ElementFactory.make("udpsrc", name: NetworkGraph.Peer.udp, properties: [
            "address": .string(address), "port": .int(Int64(port)),
            // Without SO_REUSEADDR a port another program listens on is refused instead of shared.
            "reuse": false,
            "caps": .caps(try Caps(caps)),
        ])
        let demux = try ElementFactory.make("rtpptdemux", name: NetworkGraph.Peer.payloadDemux)
        // do-lost: a packet that does not come in time is said downstream (GstRTPPacketLost, a gap
        // after the depayloader), so the decoder conceals it instead of leaving a silent hole.
        let jitter = try ElementFactory.make("rtpjitterbuffer", name: NetworkGraph.Peer.jitter, properties: ["do-lost": true])
        try controlJitterBuffer(jitter, clockRate: format.clockRate)
        let decode = [jitter] + (try decoder(for: format.encoding))
        let decrypt = try key.map { _ throws(GStreamerError) in try ElementFactory.make("srtpdec", name: NetworkGraph.Peer.decrypt) }
        try pipeline.addLinked([udp] + (decrypt.map { [$0] } ?? []) + [demux])
        try pipeline.addLinked(decode)
        try decode.last?.staticPad("src").link(to: entryPad)
        let jitterPad = try jitter.staticPad("sink")
        let logger = self.logger
        let counters = self.counters
        let description = source.description
        // Only the latched stream gets here: a new pad is a sender that took over with another payload type.
        tokens.withLock { $0.append(demux.onPadAdded { pad in
            if let previous = jitterPad.peer { _ = previous.unlink(from: jitterPad) }
            do {
                try pad.link(to: jitterPad)
            } catch {
                counters.report(.failed("the stream on \(description) cannot be decoded: \(error)"))
            }
            logger.debug("peer: \(pad.name) of \(description) plays")
        }) }
        if let decrypt, let key {
            // srtpdec asks (request-key) for the key of every SSRC its caps do not name (WORKAROUNDS §19):
            // the same key for each, so a restarted sender (a new SSRC) is decrypted too; forged packets still
            // fail, and an SSRC none of whose packets authenticate never reaches srtpdec (SRTPStreamGuard).
            let answer = try Caps("application/x-srtp" + PeerFeed.srtpFields(key))
            tokens.withLock { $0.append(decrypt.onCapsRequest("request-key") { _ in answer }) }
            // Counted first: what the guard drops is an authentication failure like srtpdec's own.
            try countAuthenticationFailures(of: decrypt)
            let authenticator = key.authenticator
            let streams = try SRTPStreamGuard(decrypt) { authenticator }
            tokens.withLock { $0.append(streams) }
        }
        if let latch {
            let decrypting = decrypt != nil
            // srtpdec's RTP pads are rtp_sink and rtp_src (it has RTCP ones beside them).
            let judged: Pad
            if let decrypt { judged = try decrypt.staticPad("rtp_src") } else { judged = try udp.staticPad("src") }
            let token = judged.addProbe(.buffer) { [counters] info in
                guard let buffer = info.buffer else { return .ok }
                if decrypting { counters.srtpOut.add(1, ordering: .relaxed) }
                switch latch.judge(buffer.bytes(), from: buffer.senderAddress) {
                case .play:
                    return .ok
                case .latched(let message):
                    logger.info("peer: \(message)")
                    counters.announce(.latched(message))
                    return .ok
                case .tookOver(let message):
                    // The jitter buffer would judge the new sequence numbers against the old sender's
                    // (WORKAROUNDS §42): it and the decoder start over, on the same running time.
                    if !info.pad.restartDownstream() { logger.warning("peer: the receiver of \(description) could not be reset for its new sender") }
                    logger.info("peer: \(message)")
                    counters.announce(.latched(message))
                    return .ok
                case .drop(let message):
                    if let message {
                        logger.warning("peer: \(message)")
                        counters.announce(.rejected(message))
                    }
                    return .drop
                }
            }
            if let token { tokens.withLock { $0.append(token) } }
        }
        return udp
    }

    /// Sets the jitter buffer's delay (fixed, or following the stream's measured jitter); each move
    /// re-anchors the engine input, so the class hears the new delay, and is logged.
    private func controlJitterBuffer(_ jitter: Element, clockRate: Int) throws(GStreamerError) {
        let input = self.input
        let logger = self.logger
        let counters = self.counters
        let description = source.description
        let control = try AdaptiveJitterBuffer(element: jitter, setting: jitterBufferSetting, clockRate: clockRate) { delay in
            input.reanchor()
            logger.info("peer: the jitter buffer of \(description) now holds \(delay.milliseconds) ms")
            counters.announce(.jitterBuffer(delay))
        }
        jitterBuffer.withLock { $0 = control }
        if let probe = try control.watch() { tokens.withLock { $0.append(probe) } }
    }

    /// The caps fields srtpdec reads a key from: AES_CM_128_HMAC_SHA1_80 for RTP and RTCP.
    private static func srtpFields(_ key: SRTPKey) -> String {
        ",srtp-key=(buffer)\(key.hex),srtp-cipher=(string)aes-128-icm,srtp-auth=(string)hmac-sha1-80"
            + ",srtcp-cipher=(string)aes-128-icm,srtcp-auth=(string)hmac-sha1-80"
    }

    /// Counts what srtpdec drops (it fails authentication: a wrong key, a forged or replayed packet,
    /// or plain RTP) as packets in minus packets out, and says so once. srtpdec handles each packet
    /// on the thread that brings the next, so a packet that did not come out was dropped.
    private func countAuthenticationFailures(of decrypt: Element) throws(GStreamerError) {
        let counters = self.counters
        let logger = self.logger
        let description = source.description
        let token = try decrypt.staticPad("rtp_sink").addProbe(.buffer) { _ in
            let failed = counters.srtpFailures
            if failed > 0, !counters.srtpFailureSaid.exchange(true, ordering: .relaxed) {
                let message = "packets that fail SRTP authentication (a wrong key, forged or replayed packets, or plain RTP) arrived on \(description); they are dropped"
                logger.warning("peer: \(message)")
                counters.announce(.rejected(message))
            }
            counters.srtpIn.add(1, ordering: .relaxed)
            return .ok
        }
        if let token { tokens.withLock { $0.append(token) } }
    }

    /// The depayloader and decoder of an encoding SessionDescription.decodable names.
    private func decoder(for encoding: String) throws(GStreamerError) -> [Element] {
        let factories: (String, String?)
        switch encoding {
        case "OPUS": factories = ("rtpopusdepay", nil)
        case "PCMU": factories = ("rtppcmudepay", "mulawdec")
        case "PCMA": factories = ("rtppcmadepay", "alawdec")
        case "L16": factories = ("rtpL16depay", nil)
        default: throw .failed("RTP \(encoding) cannot be decoded here (only \(SessionDescription.decodable.sorted().joined(separator: ", ")))")
        }
        var chain = [try ElementFactory.make(factories.0, name: NetworkGraph.Peer.depay)]
        if encoding == "OPUS", decodesFEC {
            // From the first lost packet on, a loss is rebuilt from the next one's in-band FEC where
            // the sender adds it, else concealed (PLC), for one packet of latency, not opusdec's
            // 120 ms (WORKAROUNDS §22); a stream that loses nothing holds no packet. The input is not
            // re-anchored when the hold begins: the pushes continue one packet late and the mixer's
            // wait takes them, so the loss that began it is not heard as a packet of silence.
            let logger = self.logger, counters = self.counters, description = source.description
            let opus = try OpusFECDecoder(name: NetworkGraph.Peer.decoder) { packet in
                logger.info("peer: \(description) lost a packet; its decoder now holds one (\(packet.milliseconds) ms) to rebuild the next losses from FEC")
                counters.announce(.lossRecovery(packet))
            }
            fecDecoder.withLock { $0 = opus }
            chain.append(opus.element)
        } else if encoding == "OPUS" {
            // Concealed (PLC) instead of a hole, with no packet held.
            chain.append(try ElementFactory.make("opusdec", name: NetworkGraph.Peer.decoder, properties: ["plc": true]))
        } else if let decoder = factories.1 {
            chain.append(try ElementFactory.make(decoder, name: NetworkGraph.Peer.decoder))
        }
        return chain
    }
}
