import ClassroomNetwork
import ClassroomEngine
import Foundation
import Testing

/// A WAV written to a disk that fills up (a tmpfs of 64 KiB mounted for the test): the run says
/// so in an event and its exit status, and what was written is kept as a valid WAV (#23).
@Suite("classroom-player: a full disk under the mix and the uplink WAV", .serialized, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct FullDiskTests {
    /// A tmpfs of `kilobytes` mounted on a fresh folder; `unmount()` removes it.
    struct SmallDisk {
        let folder: URL

        init(kilobytes: Int) throws {
            folder = try Fixtures.folder()
            let mount = try Fixtures.start("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder.path])
            mount.waitUntilExit()
            guard mount.terminationStatus == 0 else { throw PlayerTestError.setupFailed("mount -t tmpfs on \(folder.path)") }
        }

        func unmount() {
            let umount = try? Fixtures.start("/bin/umount", [folder.path])
            umount?.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("the mix WAV on a full disk: an output-failed event, exit 2 and a stopped event that says so, the run ends, and what was written is a valid WAV the summary names")
    func mixOnFullDisk() async throws {
        let folder = try Fixtures.folder()
        let disk = try SmallDisk(kilobytes: 64)
        defer { disk.unmount(); try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 5)
        let events = folder.appendingPathComponent("events.jsonl")
        let mix = disk.folder.appendingPathComponent("mix.wav")
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "wav:\(mix.path)", "--mic", "none", "--events", events.path, "--no-stdin"],
                                                 in: folder)
        let kept = disk.folder.appendingPathComponent("mix.wav.incomplete")
        let wav = try WAVFile(kept)
        let failed = Fixtures.events(events, named: "output-failed"), stopped = Fixtures.events(events, named: "stopped")
        print("FIGURE full disk, mix: exit \(result.status), \(String(format: "%.2f", wav.seconds)) s kept as a valid WAV: \(wav.headerMatchesFile), "
              + "output-failed \(failed.map { $0["message"] ?? "" }), stopped \(stopped.map { "\($0["reason"] ?? "") exit \($0["exit"] ?? "")" })")
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(failed.count == 1 && (failed.first?["message"] as? String)?.contains("No space left") == true)
        #expect(stopped.first?["reason"] as? String == "output-failed" && stopped.first?["exit"] as? Double == 2)
        #expect(wav.headerMatchesFile && wav.seconds > 0.2 && wav.rms(from: 0.05, to: 0.2) > -30)
        #expect(result.stdout.contains("Wrote \(kept.path)"), "stdout: \(result.stdout)")
        #expect(!result.stderr.contains("sound server lost"), "stderr: \(result.stderr)")
    }

    @Test("the uplink WAV on a full disk: an uplink-failed event and exit 2, while the class and the RTP uplink beside it go on to the end; what was written is a valid WAV")
    func uplinkOnFullDisk() async throws {
        let folder = try Fixtures.folder()
        let disk = try SmallDisk(kilobytes: 64)
        defer { disk.unmount(); try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 4)
        let events = folder.appendingPathComponent("events.jsonl")
        let receiver = try PacketCounter()
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--mic", lesson.path, "--events", events.path, "--no-stdin",
                                                  "--uplink", "wav:\(disk.folder.appendingPathComponent("uplink.wav").path)",
                                                  "--uplink", "rtp://127.0.0.1:\(receiver.port)"], in: folder)
        let packets = receiver.stop()
        let wav = try WAVFile(disk.folder.appendingPathComponent("uplink.wav.incomplete"))
        let failed = Fixtures.events(events, named: "uplink-failed"), stopped = Fixtures.events(events, named: "stopped")
        let failedAt = failed.first?["t"] as? Double ?? 0
        print("FIGURE full disk, uplink: exit \(result.status), failed at \(failedAt) s, \(packets) RTP packets, \(String(format: "%.2f", wav.seconds)) s kept, "
              + "stopped \(stopped.map { "\($0["reason"] ?? "") exit \($0["exit"] ?? "")" })")
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(failed.count == 1 && (failed.first?["message"] as? String)?.contains("No space left") == true)
        #expect(stopped.first?["reason"] as? String == "completed" && stopped.first?["exit"] as? Double == 2)
        #expect(!Fixtures.events(events, named: "lesson-ended").isEmpty)
        // 20 ms packets: the 4 s lesson is ~200; a tee stopped by the failed file would leave those before it (~0.7 s, 35).
        #expect(packets > Int((failedAt + 1.5) * 50), "\(packets) packets")
        #expect(wav.headerMatchesFile && wav.seconds > 0.2)
    }
}

/// Counts the UDP datagrams that reach a port on 127.0.0.1, on a thread of its own.
final class PacketCounter: @unchecked Sendable {
    // The count and the flag are touched under the lock only.
    private let lock = NSLock()
    private var count = 0
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        port = try LocalPort.bind(descriptor, port: 0)
        // Woken every 100 ms to see whether to stop.
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 2048)
            while !lock.withLock({ stopping }) {
                if recv(descriptor, &buffer, buffer.count, 0) > 0 { lock.withLock { count += 1 } }
            }
            close(descriptor)
            done.signal()
        }
    }

    /// Stops counting; returns the datagrams received.
    func stop() -> Int {
        lock.withLock { stopping = true }
        _ = done.wait(timeout: .now() + 5)
        return lock.withLock { count }
    }
}
