import ClassroomAudio
import ClassroomEngine
import ClassroomNetwork
import Dispatch
import Logging
import Synchronization

/// Every peer of the class — teacher, classmates, a conference room — each its own RTC input of
/// the engine with its own feed, level, 1025 alarm and figures. Peers come and go at runtime;
/// while any is live the session holds an `rtcPlayback` lease (RTC policy applies).
final class PeerRoster: Sendable {
    /// Where a peer is in its life.
    enum State: String, Sendable { case starting, playing, ended, failed }

    private struct Peer: Sendable {
        let id: String
        let feed: PeerFeed
        var state: State
        var message: String?
    }

    private struct Roster: Sendable {
        var order: [String] = []
        var peers: [String: Peer] = [:]
        var lease: LeaseToken?
        var numbered = 0
        /// Ids being added, so two adds of one id cannot both pass the check.
        var reserved: Set<String> = []
        /// Figures of peers already removed, so the run's totals keep them.
        var removedSeconds = 0.0
        var removedResyncs = 0
        var removedDropped = 0
    }

    private let controller: SessionController
    private let events: EventLog
    private let logger: Logger
    private let queue: DispatchQueue
    private let onSettled: @Sendable () -> Void
    /// How long every RTP peer's jitter buffer holds packets (`--jitter-buffer`, or adaptive).
    private let jitterBuffer: JitterBufferSetting
    private let roster = Mutex(Roster())

    /// `queue` is the player's command queue: feed events are handled there; `onSettled` runs
    /// there after a peer ended or failed.
    init(controller: SessionController, events: EventLog, jitterBuffer: JitterBufferSetting, logger: Logger, queue: DispatchQueue,
         onSettled: @escaping @Sendable () -> Void) {
        self.jitterBuffer = jitterBuffer
        self.controller = controller
        self.events = events
        self.logger = logger
        self.queue = queue
        self.onSettled = onSettled
    }

    /// The most peers a class takes at once. Each is a receiving pipeline of its own (about 6
    /// threads: 200 peers made 1219) and an input the mixer reads every 10 ms on a 2-core kiosk;
    /// a teacher and a group of classmates fit well within 16.
    static let maximum = 16

    /// Why there is a limit, for the refusals.
    static let limitReason = "a class takes at most \(maximum) peers at once: each is a receiving pipeline of its own (about 6 threads), mixed in real time on the kiosk"

    /// The engine input a peer pushes into.
    static func inputID(_ id: String) -> String { "rtc-\(id)" }

    /// The id the next unnamed peer gets: live-1, live-2 …
    func nextID() -> String {
        roster.withLock { roster in
            repeat { roster.numbered += 1 } while roster.peers["live-\(roster.numbered)"] != nil || roster.reserved.contains("live-\(roster.numbered)")
            return "live-\(roster.numbered)"
        }
    }

    /// Adds and starts a peer; returns its id. Throws `badValue` for a duplicate id and `failed`
    /// when its feed cannot start (the rest of the class is untouched).
    @discardableResult
    func add(id: String?, source: PeerSource, by origin: String) throws(CommandError) -> String {
        let id = id ?? nextID()
        let refusal = roster.withLock { roster -> CommandError? in
            guard roster.peers[id] == nil, !roster.reserved.contains(id) else {
                return CommandError(.badValue, "a peer called \"\(id)\" is already in the class; remove it first or choose another id")
            }
            // Ended and failed peers hold no pipeline: only the live ones and those being added count.
            let live = roster.peers.values.filter { $0.state == .starting || $0.state == .playing }.count + roster.reserved.count
            guard live < PeerRoster.maximum else { return CommandError(.unavailable, "the class already has \(PeerRoster.maximum) live peers; \(PeerRoster.limitReason). Remove one first") }
            roster.reserved.insert(id)
            return nil
        }
        if let refusal { throw refusal }
        defer { roster.withLock { _ = $0.reserved.remove(id) } }
        let input: AudioInput
        do {
            input = try controller.engine.addRTCInput(id: PeerRoster.inputID(id), format: PeerFeed.format)
        } catch {
            throw CommandError(.failed, "the peer \"\(id)\" cannot join the mix: \(error.description)")
        }
        let feed: PeerFeed
        do {
            feed = try PeerFeed(source: source, input: input, jitterBuffer: jitterBuffer, logger: logger)
        } catch {
            try? controller.engine.removeInput(id: input.id)
            throw CommandError(.failed, "the peer \"\(id)\" (\(source)) cannot be received: \(error.description)")
        }
        roster.withLock { roster in
            roster.peers[id] = Peer(id: id, feed: feed, state: .starting)
            roster.order.append(id)
        }
        do {
            try feed.start { [weak self] event in self?.handle(event, peer: id) }
        } catch {
            feed.stop()
            forget(id)
            throw CommandError(.failed, "the peer \"\(id)\" cannot be received: \(PeerArgument.reason(error))")
        }
        holdLease()
        events.emit("live-started", [("id", .string(id)), ("source", .string(source.description)), ("input", .string(input.id)), ("by", .string(origin))])
        return id
    }

    /// Removes a peer: its feed stops and its input leaves the mix. Throws `unavailable` for an unknown id.
    func remove(id: String, by origin: String) throws(CommandError) -> [(String, JSON)] {
        guard let peer = roster.withLock({ $0.peers[id] }) else {
            let known = ids
            throw CommandError(.unavailable, "there is no peer \"\(id)\"" + (known.isEmpty ? "; the class has no peers" : " (peers: \(known.joined(separator: ", ")))"))
        }
        peer.feed.stop()
        let figures = PeerRoster.figures(peer.feed)
        forget(id)
        events.emit("live-removed", [("id", .string(id)), ("by", .string(origin))] + figures)
        return [("id", .string(id))] + figures
    }

    /// The peers' ids, in the order they joined.
    var ids: [String] { roster.withLock { $0.order } }

    /// True when no peer is starting or playing (every one ended, failed or was removed).
    var allDone: Bool { roster.withLock { $0.peers.values.allSatisfy { $0.state == .ended || $0.state == .failed } } }

    /// Stops every feed (the run is ending).
    func stopAll() {
        for peer in roster.withLock({ Array($0.peers.values) }) { peer.feed.stop() }
    }

    /// Every peer for `status`: id, source, state, receiving, level, seconds, dropped, resyncs.
    var status: JSON {
        .array(roster.withLock { roster in roster.order.compactMap { roster.peers[$0] } }.map { peer in
            var fields: [(String, JSON)] = [("id", .string(peer.id)), ("source", .string(peer.feed.source.description)), ("state", .string(peer.state.rawValue)),
                                            ("receiving", .bool(peer.feed.isReceiving)), ("level_db", .maybe(peer.feed.level))]
            fields += PeerRoster.figures(peer.feed)
            if let message = peer.message { fields.append(("message", .string(message))) }
            return .object(fields)
        })
    }

    /// The run's totals over every peer, removed ones included, and each current peer's figures.
    var totals: [(String, JSON)] {
        let (peers, seconds, resyncs, dropped) = roster.withLock { roster in
            (roster.order.compactMap { roster.peers[$0] }, roster.removedSeconds, roster.removedResyncs, roster.removedDropped)
        }
        return [("live_seconds", .number(seconds + peers.reduce(0) { $0 + $1.feed.secondsPushed })),
                ("live_resyncs", .number(Double(resyncs + peers.reduce(0) { $0 + $1.feed.input.timelineResyncs }))),
                ("live_dropped_pushes", .number(Double(dropped + peers.reduce(0) { $0 + $1.feed.input.droppedPushes }))),
                ("peers", .array(peers.map { .object([("id", .string($0.id))] + PeerRoster.figures($0.feed)) }))]
    }

    /// One feed's figures: seconds pushed, where the mix had to break it (re-anchored or dropped
    /// pushes), how late its pushes came, and the RTP packets it would not play (another sender or payload type).
    private static func figures(_ feed: PeerFeed) -> [(String, JSON)] {
        [("seconds", .number(feed.secondsPushed)), ("resyncs", .number(Double(feed.input.timelineResyncs))),
         ("dropped", .number(Double(feed.input.droppedPushes))), ("rejected_packets", .number(Double(feed.rejectedPackets)))]
            + feed.input.lateness.fields
            + (feed.jitterBufferDelay.map { [("jitter_buffer_ms", .number(Double($0.milliseconds))), ("jitter_buffer_changes", .number(Double(feed.jitterBufferChanges)))] } ?? [])
            + (feed.fecHeld.map { [("fec_held_ms", .number(Double($0.milliseconds)))] } ?? [])
    }

    // MARK: Feed events

    private func handle(_ event: PeerFeed.Event, peer id: String) {
        switch event {
        case .started:
            roster.withLock { if $0.peers[id]?.state == .starting { $0.peers[id]?.state = .playing } }
        case .receiving:
            guard let source = roster.withLock({ $0.peers[id]?.feed.source }) else { return }
            events.emit("live-receiving", [("id", .string(id)), ("source", .string(source.description))])
        case .latched(let message):
            events.emit("live-latched", [("id", .string(id)), ("message", .string(message))])
        case .rejected(let message):
            // Said once per kind; the count keeps going in the status and the metrics.
            events.emit("live-rejected", [("id", .string(id)), ("message", .string(message))])
        case .jitterBuffer(let delay):
            events.emit("live-jitter-buffer", [("id", .string(id)), ("ms", .number(Double(delay.milliseconds)))])
        case .lossRecovery(let packet):
            events.emit("live-loss-recovery", [("id", .string(id)), ("ms", .number(Double(packet.milliseconds)))])
        case .ended, .failed:
            let failure: String?
            if case .failed(let why) = event { failure = why } else { failure = nil }
            queue.async { [self] in settle(id, failure: failure) }
        }
    }

    /// A feed that ended or failed: said once, its input leaves the mix (no 1025 for a feed that
    /// simply ended), and the lease goes with the last live peer.
    private func settle(_ id: String, failure: String?) {
        guard let peer = roster.withLock({ roster -> Peer? in
            guard var peer = roster.peers[id], peer.state == .starting || peer.state == .playing else { return nil }
            peer.state = failure == nil ? .ended : .failed
            peer.message = failure
            roster.peers[id] = peer
            return peer
        }) else { return }
        if let failure { logger.warning("peer \(id) failed: \(failure)") }
        var fields: [(String, JSON)] = [("id", .string(id)), ("source", .string(peer.feed.source.description))]
        if let failure { fields.append(("message", .string(failure))) }
        events.emit(failure == nil ? "live-ended" : "live-failed", fields + PeerRoster.figures(peer.feed))
        peer.feed.stop()
        try? controller.engine.removeInput(id: peer.feed.input.id)
        releaseLeaseIfIdle()
        onSettled()
    }

    private func forget(_ id: String) {
        let peer = roster.withLock { roster -> Peer? in
            roster.order.removeAll { $0 == id }
            guard let peer = roster.peers.removeValue(forKey: id) else { return nil }
            roster.removedSeconds += peer.feed.secondsPushed
            roster.removedResyncs += peer.feed.input.timelineResyncs
            roster.removedDropped += peer.feed.input.droppedPushes
            return peer
        }
        if let peer, peer.state == .starting || peer.state == .playing { try? controller.engine.removeInput(id: peer.feed.input.id) }
        releaseLeaseIfIdle()
    }

    // MARK: The RTC lease

    private func holdLease() {
        let needed = roster.withLock { $0.lease == nil }
        guard needed, let token = try? controller.session.lease(.rtcPlayback, owner: "rtc") else { return }
        let extra = roster.withLock { roster -> LeaseToken? in
            guard roster.lease == nil else { return token }
            roster.lease = token
            return nil
        }
        if let extra { try? controller.session.release(extra) }
    }

    private func releaseLeaseIfIdle() {
        let lease = roster.withLock { roster -> LeaseToken? in
            guard roster.peers.values.allSatisfy({ $0.state == .ended || $0.state == .failed }) else { return nil }
            defer { roster.lease = nil }
            return roster.lease
        }
        if let lease { try? controller.session.release(lease) }
    }
}
