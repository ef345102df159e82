import Foundation
import Testing

/// Events on a terminal are lines for a person; JSON lines stay for files and pipes.
@Suite("classroom-player: events on a terminal", .serialized)
struct TerminalEventTests {
    @Test("standard error on a terminal (script(1)'s pseudo-terminal) gets plain event lines, not JSON; a pipe keeps JSON")
    func plainLinesOnATerminal() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let player = ["play", lesson.path, "--mic-on", "--mic", Fixtures.sample("student-mic.ogg"), "--output", "null", "--no-stdin", "--no-mpris"]
        let command = ([PlayerProcess.executable.path] + player).map { "'\($0)'" }.joined(separator: " ")
        let terminal = try Fixtures.output(of: "/usr/bin/script", ["-qec", command, "/dev/null"])
        // A terminal ends lines with CR LF, one Character in Swift: split at the scalars.
        let lines = terminal.components(separatedBy: .newlines).map { $0.trimmingCharacters(in: .whitespaces) }
        print("FIGURE on a terminal: \(lines.first { $0.contains("microphone:") } ?? "no microphone line")")
        #expect(!terminal.contains(#"{"t":"#), "JSON event lines on a terminal: \(terminal)")
        #expect(lines.contains { $0.hasPrefix("0.0 s  started: lesson file://") }, "\(terminal)")
        #expect(lines.contains { $0.contains("s  microphone: connected yes, source file ") }, "\(terminal)")
        #expect(lines.contains { $0.contains("s  stopped: reason completed, exit 0") }, "\(terminal)")

        let piped = try await PlayerProcess.run(player, in: folder, timeout: .seconds(30))
        #expect(piped.status == 0)
        #expect(piped.stderr.contains(#""event":"microphone","connected":true"#), "a pipe keeps JSON lines: \(piped.stderr)")
    }
}
