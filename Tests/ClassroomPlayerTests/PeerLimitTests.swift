import Foundation
import Testing

/// The most peers a class takes (#23: 200 were accepted, 1219 threads): the one over is refused
/// with the limit and why, from the command line and from the peer verb; the class goes on.
@Suite("classroom-player: at most 16 peers", .serialized)
struct PeerLimitTests {
    @Test("the peer verb adds 16 peers and refuses the 17th (unavailable, with the limit and why); after a remove one more fits, and the class goes on")
    func peerVerbLimit() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 20, volume: 0.05)
        var ports: [Int] = []
        while ports.count < 18 {
            let port = try Fixtures.freeUDPPort()
            if !ports.contains(port) { ports.append(port) }
        }
        let adds = ports.prefix(17).map { #"{"do":"peer","add":"rtp://127.0.0.1:\#($0)"}"# }
        let lines = adds + [#"{"do":"peer","remove":"live-1"}"#, #"{"do":"peer","add":"rtp://127.0.0.1:\#(ports[17])"}"#, #"{"do":"status"}"#, #"{"do":"stop"}"#]
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--mic", "none"], in: folder, timeout: .seconds(60),
                                                 input: lines.joined(separator: "\n") + "\n")
        let answers = result.stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        let refused = answers.filter { $0["ok"] as? Bool == false }
        print("FIGURE peer limit: \(answers.filter { $0["ok"] as? Bool == true }.count) answered ok, refused \(refused.map { "\($0["error"] ?? ""): \($0["message"] ?? "")" })")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(answers.count == lines.count, "\(answers)")
        guard answers.count == lines.count else { return }
        #expect(answers[0..<16].allSatisfy { $0["ok"] as? Bool == true })
        #expect(answers[16]["error"] as? String == "unavailable")
        #expect((answers[16]["message"] as? String)?.contains("a class takes at most 16 peers at once") == true, "\(answers[16])")
        #expect(answers[17]["ok"] as? Bool == true && answers[18]["ok"] as? Bool == true, "\(answers[17]) \(answers[18])")
        #expect((answers[19]["peers"] as? [[String: Any]])?.count == 16, "\(answers[19])")
    }
}
