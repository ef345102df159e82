import Foundation

/// A UDP relay on 127.0.0.1 (python3) that holds each packet for a random 0 to `jitter` ms
/// (uniform, so packets overtake each other) during the first `jitterySeconds` after the first
/// packet, and forwards at once after that: a network that turns calm. Ends 1.5 s after the last packet.
struct JitterRelay {
    private static let script = #"""
    import heapq, random, select, socket, sys, time
    listen, forward, jitter_ms, jittery = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); inbound.bind(("127.0.0.1", listen))
    outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    random.seed(7)
    held, first, last, order = [], None, time.monotonic(), 0
    while time.monotonic() - last < 1.5 or held:
        now = time.monotonic()
        while held and held[0][0] <= now:
            outbound.sendto(heapq.heappop(held)[2], ("127.0.0.1", forward))
        wait = max(0.0, min(0.05, (held[0][0] - now) if held else 0.05))
        if select.select([inbound], [], [], wait)[0]:
            data, _ = inbound.recvfrom(2048)
            now = last = time.monotonic()
            first = first or now
            delay = random.uniform(0, jitter_ms / 1000) if now - first < jittery else 0
            order += 1
            heapq.heappush(held, (now + delay, order, data))
    """#

    let process: Process

    /// Relays `listen` to `forward`, jittering by up to `jitter` ms for the first `jitterySeconds`.
    init(listen: Int, forward: Int, jitter: Int, jitterySeconds: Double, in folder: URL) throws {
        let code = folder.appendingPathComponent("jitter-relay.py")
        try JitterRelay.script.write(to: code, atomically: true, encoding: .utf8)
        process = try Fixtures.start("/usr/bin/python3", [code.path, "\(listen)", "\(forward)", "\(jitter)", "\(jitterySeconds)"])
    }
}
