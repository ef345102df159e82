import Foundation

/// A UDP relay on 127.0.0.1 (python3) between an RTP sender and its receiver: it forwards every
/// packet but each `dropEvery`-th (none when 0), and every packet to `lossless` if given, records
/// each packet's RTP header and payload, and ends 1.5 s after the last packet or after `seconds`, whichever
/// comes first.
struct LossyRelay {
    /// One packet as the relay saw it.
    struct Packet {
        let sequence: Int
        let timestamp: Int
        /// The first payload byte: Opus's TOC, whose top 5 bits are its mode and frame size.
        let firstPayloadByte: Int
        /// The payload's length (the RTP header taken as 12 bytes: no CSRC, no extension).
        let payloadBytes: Int
        let dropped: Bool
        /// The payload as sent (the RTP header taken as 12 bytes).
        let payload: [UInt8]
        /// When the relay received it, in seconds after the first packet.
        let arrival: Double

        /// The audio an Opus packet of one frame carries, in milliseconds, from its TOC byte's configuration (RFC 6716 §3.1).
        var opusMilliseconds: Double {
            let config = firstPayloadByte >> 3
            switch config {
            case 0..<12: return [10, 20, 40, 60][config % 4]
            case 12..<16: return config % 2 == 0 ? 10 : 20
            default: return [2.5, 5, 10, 20][config % 4]
            }
        }
    }

    private static let script = #"""
    import json, socket, sys, time
    listen, forward, drop_every, seconds, record = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    inbound.bind(("127.0.0.1", listen))
    outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lossless = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    packets, end, first, last = [], time.monotonic() + seconds, None, None
    while time.monotonic() < end:
        inbound.settimeout(max(0.01, min(1.5 if first else seconds, end - time.monotonic())))
        try:
            data, _ = inbound.recvfrom(2048)
        except socket.timeout:
            if first: break
            continue
        last = time.monotonic()
        first = first or last
        if len(data) < 13: continue
        dropped = drop_every > 0 and (len(packets) + 1) % drop_every == 0
        packets.append({"seq": int.from_bytes(data[2:4], "big"), "ts": int.from_bytes(data[4:8], "big"), "toc": data[12], "size": len(data) - 12, "dropped": dropped, "payload": data[12:].hex(), "at": last - first})
        if not dropped and forward: outbound.sendto(data, ("127.0.0.1", forward))
        if lossless: outbound.sendto(data, ("127.0.0.1", lossless))
    json.dump({"packets": packets, "seconds": (last - first) if first else 0}, open(record + ".part", "w"))
    import os; os.rename(record + ".part", record)
    """#

    let process: Process
    private let record: URL

    /// Starts relaying `listen` to `forward` (0: record only), and without loss to `lossless` (0: nowhere).
    init(listen: Int, forward: Int, dropEvery: Int, seconds: Int, lossless: Int = 0, in folder: URL) throws {
        let code = folder.appendingPathComponent("relay.py")
        try LossyRelay.script.write(to: code, atomically: true, encoding: .utf8)
        record = folder.appendingPathComponent("relay-\(listen).json")
        process = try Fixtures.startPeer("/usr/bin/python3", [code.path, "\(listen)", "\(forward)", "\(dropEvery)", "\(seconds)", record.path, "\(lossless)"])
    }

    /// The packets seen and the seconds between the first and the last, once the relay has ended (waits up to `timeout`).
    func packets(within timeout: Duration) async throws -> (packets: [Packet], seconds: Double) {
        _ = await waitUntil(timeout: timeout) { FileManager.default.fileExists(atPath: record.path) }
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: record)) as? [String: Any],
              let list = object["packets"] as? [[String: Any]] else { throw PlayerTestError.setupFailed("the relay wrote no record at \(record.path)") }
        let packets = list.map { Packet(sequence: $0["seq"] as? Int ?? -1, timestamp: $0["ts"] as? Int ?? -1,
                                        firstPayloadByte: $0["toc"] as? Int ?? -1, payloadBytes: $0["size"] as? Int ?? -1, dropped: $0["dropped"] as? Bool ?? false,
                                        payload: LossyRelay.bytes(hex: $0["payload"] as? String ?? ""), arrival: $0["at"] as? Double ?? 0) }
        return (packets, object["seconds"] as? Double ?? 0)
    }

    private static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }
}
