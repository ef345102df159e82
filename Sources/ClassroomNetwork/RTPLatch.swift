import Dispatch
import Synchronization

/// Which stream a peer's port plays: the first packet of an acceptable payload type latches its
/// SSRC, payload type and sender, and only that stream passes. Everything else — another payload
/// type, a second SSRC or the same SSRC from another address, what is not RTP at all — is dropped
/// and counted, and said once per kind. A latched sender that has been silent for `takeoverAfter`
/// can be replaced by the next acceptable one (a restarted sender), as RTP receivers do; an SRTP
/// feed's `admits` may still refuse that new stream (a replay from an earlier class).
///
/// Called on the receiver's streaming thread for every packet: one short lock, and no allocation
/// beyond the message of a first rejection and the reason `admits` gives for a stream it refuses.
public final class RTPLatch: Sendable {
    /// Which payload types the port plays.
    public enum Accepting: Sendable, Hashable {
        /// Any dynamic payload type (96–127): rtp:// feeds carry Opus there.
        case anyDynamic
        /// Exactly this one (a pinned `?pt=` or the one an SDP file describes); `pinnedBy` says where it was named.
        case only(Int, pinnedBy: String)
    }

    /// What to do with one packet.
    public enum Verdict: Sendable, Equatable {
        /// The latched stream: play it.
        case play
        /// The first packet: play it; say the message.
        case latched(String)
        /// A new sender taking over a silent one: play it from a fresh start downstream (its
        /// sequence numbers and timestamps have nothing to do with the last one's); say the message.
        case tookOver(String)
        /// Drop it; `message` is set the first time this kind of packet is dropped, to be said once.
        case drop(message: String?)
    }

    private struct Stream: Sendable, Equatable {
        var payloadType: Int
        var ssrc: UInt32
        var sender: String?
    }

    /// The kinds of packets said once: a flood of strangers is one event, not thousands.
    private enum Kind: Hashable { case notRTP, payloadType, otherSender, refused }

    private struct State: Sendable {
        var stream: Stream?
        var lastPlayed: UInt64 = 0
        var said: Set<Kind> = []
        var dropped = 0
    }

    /// How long the latched sender must be silent before another may take its place.
    public static let takeoverAfter = Duration.seconds(2)

    /// Which payload types it plays.
    public let accepting: Accepting
    private let feed: String
    private let takeoverNanoseconds: UInt64
    private let state = Mutex(State())

    /// Asked about a new stream's packet before it latches or takes over: why it may not, or nil.
    private let admits: (@Sendable (_ packet: [UInt8]) -> String?)?

    /// A latch for the port `feed` names (said in messages), playing what `accepting` allows and,
    /// when given, `admits` lets start (an SRTP feed's freshness check).
    public init(accepting: Accepting, feed: String, takeoverAfter: Duration = RTPLatch.takeoverAfter,
                admits: (@Sendable (_ packet: [UInt8]) -> String?)? = nil) {
        self.accepting = accepting
        self.feed = feed
        self.admits = admits
        takeoverNanoseconds = UInt64(takeoverAfter.components.seconds) * 1_000_000_000 + UInt64(takeoverAfter.components.attoseconds / 1_000_000_000)
    }

    /// Packets dropped so far.
    public var dropped: Int { state.withLock { $0.dropped } }

    /// Judges one packet: `packet` is its bytes (only the header is read), `sender` where it came from.
    public func judge(_ packet: [UInt8], from sender: String?, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Verdict {
        guard let header = RTPHeader(packet) else {
            return drop(.notRTP) { "packets that are not RTP (no version-2 header) arrived on \(feed)\(from(sender)); they are dropped" }
        }
        return state.withLock { state -> Verdict in
            let candidate = Stream(payloadType: header.payloadType, ssrc: header.ssrc, sender: sender)
            if let playing = state.stream, playing == candidate {
                state.lastPlayed = now
                return .play
            }
            if let refusal = refusal(of: header.payloadType, from: sender) {
                return drop(.payloadType, in: &state, refusal)
            }
            let mayStart = state.stream == nil || now &- state.lastPlayed >= takeoverNanoseconds
            if mayStart, let refusal = admits?(packet) {
                return drop(.refused, in: &state, refusal)
            }
            guard let playing = state.stream else {
                state.stream = candidate
                state.lastPlayed = now
                return .latched("playing SSRC \(header.ssrcText)\(from(sender)), payload type \(header.payloadType), on \(feed)")
            }
            if now &- state.lastPlayed >= takeoverNanoseconds {
                let silence = Double(now &- state.lastPlayed) / 1e9
                state.stream = candidate
                state.lastPlayed = now
                state.said = []
                return .tookOver("the sender on \(feed) changed: SSRC \(header.ssrcText)\(from(sender)) plays now (payload type \(header.payloadType)), after "
                                + "\(String(format: "%.1f", silence)) s without packets from SSRC \(RTPHeader.text(ssrc: playing.ssrc))\(from(playing.sender)) (a restarted sender)")
            }
            let takeover = "it is played only if the one playing falls silent for \(takeoverNanoseconds / 1_000_000_000) s"
            if header.payloadType != playing.payloadType {
                return drop(.payloadType, in: &state, "a second payload type, \(header.payloadType)\(from(sender)), arrived on \(feed) while payload type "
                            + "\(playing.payloadType) plays; only one stream per port is played, the other's packets are dropped, and \(takeover)")
            }
            return drop(.otherSender, in: &state, "a second sender (SSRC \(header.ssrcText)\(from(sender))) arrived on \(feed) while SSRC "
                        + "\(RTPHeader.text(ssrc: playing.ssrc))\(from(playing.sender)) plays; its packets are dropped, and \(takeover)")
        }
    }

    /// Why a payload type is not played, or nil when it may be.
    private func refusal(of type: Int, from sender: String?) -> String? {
        switch accepting {
        case .only(let pinned, let pinnedBy) where type != pinned:
            return "payload type \(type)\(RTPHeader.codecName(ofStatic: type))\(from(sender)) arrived on \(feed), which plays payload type \(pinned) (\(pinnedBy)); its packets are dropped"
        case .anyDynamic where !(96...127).contains(type):
            return "payload type \(type)\(RTPHeader.codecName(ofStatic: type))\(from(sender)) arrived on \(feed): rtp:// feeds are Opus on a dynamic payload type (96–127);"
                + " describe this sender with an SDP file (--live FILE.sdp); its packets are dropped"
        default:
            return nil
        }
    }

    private func drop(_ kind: Kind, _ message: () -> String) -> Verdict {
        state.withLock { state in drop(kind, in: &state, message()) }
    }

    private func drop(_ kind: Kind, in state: inout State, _ message: @autoclosure () -> String) -> Verdict {
        state.dropped += 1
        return .drop(message: state.said.insert(kind).inserted ? message() : nil)
    }

    private func from(_ sender: String?) -> String { sender.map { " from \($0)" } ?? "" }
}
