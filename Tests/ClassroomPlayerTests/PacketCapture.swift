import ClassroomMeasurement
import Foundation

/// tshark on one interface of a test's network namespace, UDP only, into the test's folder; then
/// what crossed, as a listener on the path sees it.
final class PacketCapture: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, interrupt, waitUntilExit).
    private let process: Process
    let file: URL

    /// Starts capturing UDP on `interface` inside `namespace` for `seconds` (tshark ends by itself:
    /// the test process's children inherit its blocked signals, so SIGINT would not reach it);
    /// waits (up to 5 s) until tshark listens.
    init(_ net: NetworkNamespaces, namespace: String, interface: String, seconds: Int, folder: URL) async throws {
        file = folder.appendingPathComponent("capture-\(interface).pcapng")
        let log = folder.appendingPathComponent("tshark-\(interface).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = net.exec(in: namespace, ["/usr/bin/tshark", "-q", "-i", interface, "-f", "udp", "-a", "duration:\(seconds)", "-w", file.path])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        guard await waitUntil(timeout: .seconds(5), { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Capturing on") }) else {
            throw PlayerTestError.setupFailed("tshark did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
    }

    /// Waits for the capture's end (up to its duration and 5 s more), then ends it in any case.
    func finish() async {
        _ = await waitUntil(timeout: .seconds(40)) { !self.process.isRunning }
        Fixtures.stop(process)
    }

    /// What the capture holds, by RFC 7983's first-byte demultiplexing of each UDP payload.
    struct Summary: CustomStringConvertible {
        var stun = 0, dtls = 0, rtp = 0, rtcp = 0, other = 0
        /// The distinct first payload bytes of the Opus RTP packets (payload type 111): an Opus
        /// stream in the clear repeats a few TOC bytes; an encrypted one spreads over all 256.
        var opusFirstBytes = Set<UInt8>()

        var description: String { "STUN \(stun), DTLS \(dtls), RTP \(rtp) (\(opusFirstBytes.count) distinct first payload bytes), RTCP \(rtcp), other \(other)" }
    }

    /// Reads the capture with tshark and sorts every UDP payload.
    func summary() throws -> Summary {
        let reader = Process(), pipe = Pipe()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        reader.arguments = ["-r", file.path, "-T", "fields", "-e", "udp.payload"]
        reader.standardInput = FileHandle.nullDevice
        reader.standardOutput = pipe
        reader.standardError = FileHandle.nullDevice
        try reader.run()
        let output = String(data: pipe.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
        reader.waitUntilExit()
        var summary = Summary()
        for line in output.split(separator: "\n") {
            let bytes = PacketCapture.bytes(hex: line)
            guard let first = bytes.first else { continue }
            switch first {
            case 0...3: summary.stun += 1
            case 20...63: summary.dtls += 1
            case 128...191:
                guard bytes.count > 1 else { summary.other += 1; continue }
                // RTCP packet types 192-223 sit where RTP's marker bit and payload type do (RFC 5761).
                if (192...223).contains(bytes[1]) { summary.rtcp += 1; continue }
                summary.rtp += 1
                guard bytes[1] & 0x7f == 111 else { continue }
                var offset = 12 + 4 * Int(first & 0x0f)
                if first & 0x10 != 0, bytes.count >= offset + 4 { offset += 4 + 4 * (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) }
                if offset < bytes.count { summary.opusFirstBytes.insert(bytes[offset]) }
            default: summary.other += 1
            }
        }
        return summary
    }

    private static func bytes(hex: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), next > index {
            guard let byte = UInt8(hex[index..<next], radix: 16) else { break }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
