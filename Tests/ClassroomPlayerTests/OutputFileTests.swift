import Foundation
import Testing

/// What the player's output paths (`--output wav:`, `--uplink wav:`, `--uplink-sdp`, `--events`)
/// do to what is already there: a device or FIFO is written through, a symbolic link followed,
/// a directory or a FIFO nobody reads refused before anything plays (#23).
@Suite("classroom-player: output paths that are devices, FIFOs, links and directories", .serialized)
struct OutputFileTests {
    /// What is at `path`, without following a link: S_IFCHR, S_IFIFO, S_IFLNK, S_IFREG … (0 when nothing).
    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// Runs a coreutils program to the end (mknod, mkfifo).
    static func make(_ program: String, _ arguments: [String]) throws {
        let process = try Fixtures.start(program, arguments)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("\(program) \(arguments.joined(separator: " "))") }
    }

    @Test("private device nodes named as the output WAV, the uplink WAV, the SDP and the events file are written through and stay devices")
    func deviceNodes() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let nodes = ["mix", "uplink", "sdp", "events"].map { folder.appendingPathComponent("null-\($0)").path }
        // The kernel's null device (1,3), as a node of our own: the real /dev/null is never touched.
        for node in nodes { try OutputFileTests.make("/usr/bin/mknod", [node, "c", "1", "3"]) }
        let port = try Fixtures.freeUDPPort()
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "wav:\(nodes[0])", "--mic", "none", "--uplink", "wav:\(nodes[1])",
                                                  "--uplink", "rtp://127.0.0.1:\(port)", "--uplink-sdp", nodes[2], "--events", nodes[3], "--no-stdin"],
                                                 in: folder)
        print("FIGURE device nodes: exit \(result.status), types \(nodes.map { String(OutputFileTests.fileType($0), radix: 8) })")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for node in nodes { #expect(OutputFileTests.fileType(node) == S_IFCHR, "\(node) is no longer a device") }
        #expect(result.stderr.contains("is a device: written through"), "stderr: \(result.stderr)")
    }

    @Test("a FIFO named as the output WAV and the events file is written through to its reader and stays a FIFO; one nobody reads is refused (exit 1), not waited on")
    func fifos() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let mix = folder.appendingPathComponent("mix.fifo").path, events = folder.appendingPathComponent("events.fifo").path
        for fifo in [mix, events] { try OutputFileTests.make("/usr/bin/mkfifo", [fifo]) }

        let unread = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--mic", "none", "--events", events, "--no-stdin"], in: folder)
        #expect(unread.status == 1, "stderr: \(unread.stderr)")
        #expect(unread.stderr.contains("no program is reading the FIFO"), "stderr: \(unread.stderr)")

        let readers = [FIFOReader(mix), FIFOReader(events)]
        let player = try PlayerProcess(["play", lesson.path, "--output", "wav:\(mix)", "--mic", "none", "--events", events, "--no-stdin"], in: folder)
        let status = try await player.exitStatus(within: .seconds(60))
        let (wav, lines) = (readers[0].finish(), String(decoding: readers[1].finish(), as: UTF8.self))
        print("FIGURE FIFOs: exit \(status), \(wav.count) WAV bytes, \(lines.split(separator: "\n").count) event lines through the FIFOs")
        #expect(status == 0, "stderr: \(player.stderr)")
        #expect(wav.count > 100_000 && String(decoding: wav.prefix(4), as: UTF8.self) == "RIFF", "\(wav.count) bytes")
        #expect(lines.contains(#""event":"stopped""#), "events: \(lines)")
        for fifo in [mix, events] { #expect(OutputFileTests.fileType(fifo) == S_IFIFO, "\(fifo) is no longer a FIFO") }
    }

    @Test("a symbolic link named as the output WAV and the events file is followed: the link stays, the file it leads to is written, and stderr says so")
    func symbolicLinks() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let real = folder.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: real.appendingPathComponent("mix.wav"))
        let mixLink = folder.appendingPathComponent("mix.wav").path, eventsLink = folder.appendingPathComponent("events.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: mixLink, withDestinationPath: "real/mix.wav")
        try FileManager.default.createSymbolicLink(atPath: eventsLink, withDestinationPath: "real/events.jsonl")   // dangling until written
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "wav:\(mixLink)", "--mic", "none", "--events", eventsLink, "--no-stdin"],
                                                 in: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for link in [mixLink, eventsLink] { #expect(OutputFileTests.fileType(link) == S_IFLNK, "\(link) is no longer a link") }
        let wav = try WAVFile(real.appendingPathComponent("mix.wav"))
        print("FIGURE symbolic links: exit \(result.status), \(String(format: "%.2f", wav.seconds)) s written where the link leads")
        #expect(wav.headerMatchesFile && wav.seconds > 0.5)
        #expect(!Fixtures.events(real.appendingPathComponent("events.jsonl"), named: "stopped").isEmpty)
        #expect(result.stderr.contains("is a symbolic link: writing to \(real.path)/mix.wav"), "stderr: \(result.stderr)")
    }
}

/// Reads a FIFO on a thread of its own, as another program would, until its writer is gone
/// after `finish()` is called (bounded: a writer that never came leaves it empty).
final class FIFOReader: @unchecked Sendable {
    // The data and the flag are touched under the lock only.
    private let lock = NSLock()
    private var data = Data()
    private var finishing = false
    private let done = DispatchSemaphore(value: 0)

    init(_ path: String) {
        // Opened now without waiting (a reader exists before the player starts), then read blocking.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while descriptor >= 0 {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    lock.withLock { data.append(contentsOf: buffer[0..<count]) }
                } else if lock.withLock({ finishing }) || count < 0 {
                    break
                } else {
                    usleep(20_000)   // no writer yet, or between the player's opens: not the end
                }
            }
            if descriptor >= 0 { close(descriptor) }
            done.signal()
        }
    }

    /// What was read, once the writer (the player, already ended) has gone.
    func finish() -> Data {
        lock.withLock { finishing = true }
        _ = done.wait(timeout: .now() + 10)
        return lock.withLock { data }
    }
}
