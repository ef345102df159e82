import Foundation
import Testing

/// Messages that misled (#23): each case says what is wrong with what was given, and the
/// `stopped` event carries the exit status the process exits with.
@Suite("classroom-player: messages that say what is wrong", .serialized)
struct MessageTests {
    @Test("a timeline that is a FIFO, an SDP without c=, --uplink-sdp naming a directory, a control path that is a FIFO: refused with what is wrong, and stopped says the real exit status",
          arguments: [
              ("TIMELINEFIFO", "is a FIFO (named pipe), not a file"),
              ("SDPWITHOUTC", "it gives no connection address (a c= line"),
              ("SDPDIRSLASH", "it names a directory (it ends with '/')"),
              ("SDPDIR", "it is a directory; name a file in it"),
              ("CONTROLFIFO", "a file that is not a socket is already there"),
          ])
    func misleading(kind: String, message: String) async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let fifo = folder.appendingPathComponent("pipe").path
        try OutputFileTests.make("/usr/bin/mkfifo", [fifo])
        let directory = folder.appendingPathComponent("sdp-folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let events = folder.appendingPathComponent("events.jsonl")
        let port = try Fixtures.freeUDPPort()
        var arguments = ["play", lesson.path, "--output", "null", "--mic", "none", "--no-stdin", "--events", events.path]
        switch kind {
        case "TIMELINEFIFO": arguments += ["--script", fifo]
        case "SDPWITHOUTC":
            let sdp = folder.appendingPathComponent("no-c.sdp")
            try "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=-\nt=0 0\nm=audio \(port) RTP/AVP 96\na=rtpmap:96 opus/48000/2\n".write(to: sdp, atomically: true, encoding: .utf8)
            arguments += ["--live", sdp.path]
        case "SDPDIRSLASH": arguments += ["--uplink", "rtp://127.0.0.1:\(port)", "--uplink-sdp", directory.path + "/"]
        case "SDPDIR": arguments += ["--uplink", "rtp://127.0.0.1:\(port)", "--uplink-sdp", directory.path]
        default: arguments += ["--control", fifo]
        }
        let result = try await PlayerProcess.run(arguments, in: folder, timeout: .seconds(30))
        let stopped = Fixtures.events(events, named: "stopped")
        print("FIGURE \(kind): exit \(result.status), stopped exit \(stopped.map { $0["exit"] ?? "" }), \(result.stderr.split(separator: "\n").last ?? "")")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        for misleading in ["permission", "NSCocoaErrorDomain", "error 512"] { #expect(!result.stderr.contains(misleading), "stderr: \(result.stderr)") }
        // A run that started and could not go on says so in stopped, with the status it exits with.
        for event in stopped { #expect(event["exit"] as? Double == Double(result.status), "\(event)") }
    }

    @Test("a silent lesson's summary says silent (below -90 dBFS), not -inf or -350 dBFS")
    func silentSummary() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1, volume: 0)
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--mic", "none", "--no-stdin"], in: folder)
        print("FIGURE silent summary: exit \(result.status), \(result.stdout.split(separator: "\n").last ?? "")")
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("silent (below -90 dBFS)"), "stdout: \(result.stdout)")
        #expect(result.stderr.contains("the output was silent (peak below -90 dBFS)"), "stderr: \(result.stderr)")
        // The event lines keep the meter's figures as data; the lines people read do not print them.
        let said = (result.stdout + result.stderr).split(separator: "\n").filter { !$0.hasPrefix("{") }.joined(separator: "\n")
        for number in ["-inf", "-350", "-200"] { #expect(!said.contains(number), "\(said)") }
    }
}
