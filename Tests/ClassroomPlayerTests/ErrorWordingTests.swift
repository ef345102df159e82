import Foundation
import Testing

/// A failure's message points at what is wrong, and its advice is the advice for that: a mistyped
/// scheme is no missing decoder, a microphone has no WAV output, an RTP address no path.
@Suite("classroom-player: each failure says what happened and what to do about it", .serialized)
struct ErrorWordingTests {
    /// Runs the player with `arguments` (LESSON: a one-second tone) and returns its exit status and stderr.
    private func run(_ arguments: [String], environment: [String: String] = [:], prepare: (URL) throws -> Void = { _ in }) async throws -> (Int32, String) {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("lesson.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        try prepare(folder)
        let result = try await PlayerProcess.run(arguments.map { $0.replacingOccurrences(of: "LESSON", with: lesson.path) }, in: folder, environment: environment)
        return (result.status, result.stderr)
    }

    @Test("a lesson address whose scheme nothing reads (htp://) is named as such, not as a missing decoder")
    func unknownScheme() async throws {
        let (status, stderr) = try await run(["play", "htp://lessons.invalid/lesson.webm", "--output", "null", "--mic", "none"])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.contains("no GStreamer source here reads htp:// addresses; check the address"), "\(stderr)")
        #expect(!stderr.contains("gstreamer1.0-libav") && !stderr.contains("decoder"), "\(stderr)")
    }

    @Test("a text file given as the lesson is not a media file, not a damaged one, and the reason is said once")
    func textLesson() async throws {
        let (status, stderr) = try await run(["play", "notes.mp4", "--output", "null", "--mic", "none"]) { folder in
            try String(repeating: "Page 12: the little red hen plants the wheat all by herself.\n", count: 40)
                .write(to: folder.appendingPathComponent("notes.mp4"), atomically: true, encoding: .utf8)
        }
        let last = stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(status == 2, "\(stderr)")
        #expect(last.contains("(notMedia): This appears to be a text file") && last.contains("not a media file; replace it"), "\(last)")
        #expect(!last.contains("copy it again"), "\(last)")
        #expect(last.components(separatedBy: "The lesson cannot be played").count == 2, "said once: \(last)")
    }

    @Test("a live feed's address that is wrong is said to be unusable, with no advice about paths")
    func feedAddress() async throws {
        let (status, stderr) = try await run(["play", "LESSON", "--live", "rtp://127.0.0.1:5004?pt=0", "--output", "null", "--mic", "none"])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.contains("The live feed 'rtp://127.0.0.1:5004?pt=0' cannot be used: pt is the dynamic payload type"), "\(stderr)")
        #expect(!stderr.contains("Check the path"), "\(stderr)")
    }

    @Test("a timeline that is not valid JSON is shown where, and what a timeline looks like, not how a control line does")
    func timelineSyntax() async throws {
        let (status, stderr) = try await run(["play", "LESSON", "--script", "broken.json", "--output", "null", "--mic", "none"]) { folder in
            try "[\n  {\"at\": 1, \"do\": \"mic\", \"on\": true},\n  {\"at\": 2, \"do\": }\n]\n".write(to: folder.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        }
        #expect(status == 64, "\(stderr)")
        #expect(stderr.contains("not valid JSON (unexpected character at line 3, column 19); a timeline is one JSON array of steps"), "\(stderr)")
        #expect(!stderr.contains("one JSON object per line"), "\(stderr)")
    }

    @Test("a named microphone with no sound server is told the microphone's ways around it, not the output's")
    func microphoneWithoutServer() async throws {
        let (status, stderr) = try await run(["play", "LESSON", "--mic", "usb-headset", "--output", "null"],
                                             environment: ["PULSE_SERVER": "unix:/nonexistent/pulse/native", "DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(status == 69, "\(stderr)")
        #expect(stderr.contains("--mic usb-headset needs one") && stderr.contains("--mic none or --mic FILE"), "\(stderr)")
        #expect(!stderr.contains("--output wav:PATH"), "\(stderr)")
    }
}
