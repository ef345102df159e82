import Foundation
import Testing

/// `classroom-player control`: the client a kiosk has for its player's control socket.
@Suite("classroom-player control", .serialized)
struct ControlCommandTests {
    @Test("lines as arguments or on standard input get the player's answers; a refused line exits 2, no player exits 1")
    func roundTrip() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2)
        let socket = folder.appendingPathComponent("control.sock").path
        let player = try PlayerProcess(["play", lesson.path, "--after-lesson", "stay", "--output", "null", "--mic", "none", "--no-stdin", "--control", socket],
                                       in: folder)
        #expect(await waitUntil(timeout: .seconds(15)) { player.stderr.contains(#""event":"started""#) }, "stderr: \(player.stderr)")

        let status = try await PlayerProcess.run(["control", "--socket", socket, #"{"do":"status","id":7}"#, #"{"do":"duck","on":true}"#], in: folder)
        let answers = status.stdout.split(separator: "\n")
        print("FIGURE control: exit \(status.status), \(answers.count) answers; \(answers.first?.prefix(80) ?? "")")
        #expect(status.status == 0, "stderr: \(status.stderr)")
        #expect(answers.count == 2 && answers[0].contains(#""do":"status""#) && answers[0].contains(#""id":7"#) && answers[1].contains(#""ducked":true"#), "\(status.stdout)")

        let refused = try await PlayerProcess.run(["control", "--socket", socket, #"{"do":"dance"}"#], in: folder)
        #expect(refused.status == 2 && refused.stdout.contains(#""error":"unknown-verb""#), "\(refused.status): \(refused.stdout)")

        let stop = try await PlayerProcess.run(["control", "--socket", socket], in: folder, input: #"{"do":"stop"}"# + "\n")
        #expect(stop.status == 0 && stop.stdout.contains(#""stopping":true"#), "\(stop.status): \(stop.stdout) \(stop.stderr)")
        #expect(try await player.exitStatus(within: .seconds(15)) == 0)

        let gone = try await PlayerProcess.run(["control", "--socket", socket, #"{"do":"status"}"#], in: folder)
        #expect(gone.status == 1 && gone.stderr.contains("no player answers at \(socket)"), "\(gone.status): \(gone.stderr)")
    }
}
