import ClassroomEngine
import Dispatch
import GStreamer
import Logging

/// A joined room whose audio never comes: Janus in another network namespace than the kiosks
/// sent the mix to an address they do not have, both joined, and nothing said why they heard nothing.
extension JanusRoom {
    /// How soon after joining the room's audio must arrive.
    static let audioGrace = ClockTime.seconds(2)

    /// Janus sends the mix as soon as we joined: nothing on `input` within `audioGrace` raises 1025
    /// (the monitor counts silence from then), and a second later `joined` (the room's handler
    /// while the same join stands) is told why, naming the `endpoint` Janus sends to.
    static func watchForAudio(on input: AudioInput, at endpoint: String, from host: String, logger: Logger,
                              joined: @escaping @Sendable () -> (@Sendable (Event) -> Void)?) {
        input.arrivals.expect(within: audioGrace)
        // Weak: a room left meanwhile lets go of its input (and the engine's pipeline) now, not 3 s later.
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(audioGrace.nanoseconds)) + .seconds(1)) { [weak input] in
            // Silence counts from the grace's end: a second later, more than half of it is nothing arriving.
            guard let input, let handler = joined(), input.arrivals.silence().map({ $0 > .milliseconds(500) }) ?? true else { return }
            let why = "joined, but none of the room's audio arrives at \(endpoint), where Janus sends the mix: check that "
                + "\(host) reaches this address (routes, a firewall, NAT) and that the audiobridge's local_ip is an address this kiosk reaches"
            logger.warning("room: \(why)")
            handler(.silent(why))
        }
    }
}
