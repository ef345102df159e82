import Foundation
import Testing

@Suite("classroom-player devices", .serialized)
struct DevicesTests {
    @Test("devices lists the sound server's null sink as the built-in speaker and the route it would pick")
    func devices() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await PlayerProcess.run(["devices", "--json"], in: folder)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        guard ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1" else {
            // No private server: say so, with no devices (a server of the machine's own may exist; then this is not checked).
            if report["sound_server"] as? Bool == false { #expect((report["devices"] as? [Any])?.isEmpty == true) }
            return
        }
        let devices = try #require(report["devices"] as? [[String: Any]])
        let speaker = try #require(devices.first { $0["id"] as? String == "speaker" })
        #expect(speaker["port"] as? String == "builtInSpeaker")
        #expect(speaker["direction"] as? String == "output")
        let monitor = devices.first { $0["id"] as? String == "speaker.monitor" }
        #expect(monitor == nil || monitor?["port"] is NSNull)      // a sink monitor is never a microphone
        let routes = try #require(report["routes"] as? [String: Any])
        let playback = try #require(routes["playback"] as? [String: Any])
        #expect((playback["output"] as? [String: Any])?["device"] as? String == "speaker")
    }
}
