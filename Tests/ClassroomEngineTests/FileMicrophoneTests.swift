import ClassroomMeasurement
import Foundation
import Testing
@testable import ClassroomEngine
import GStreamer

/// A file standing for the microphone (`--mic FILE`) is decoded in the engine's playing pipeline.
/// A kiosk in a Janus room once connected its file microphone and sent nothing for the whole talk
/// (0 frames, no error): the decoder had been started before the chain it feeds.
@Suite("File microphone")
struct FileMicrophoneTests {
    init() throws { try EngineSupport.start() }

    @Test("every connect of a file microphone delivers frames")
    func everyConnectDelivers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-mic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("voice.wav")
        // One second of a 440 Hz tone.
        let tone = (0..<48_000).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try WaveFile.bytes(tone, rate: 48_000).write(to: file)
        let engine = try AudioEngine(output: .discard, logger: EngineSupport.logger)
        try engine.start()
        defer { engine.stop() }
        let cycles = 300
        var silent: [Int] = []
        for cycle in 0..<cycles {
            let uplink = try engine.connectMicrophone(.file(path: file.path), processing: .off) { _ in }
            if !(await waitFor(timeout: .seconds(2)) { uplink.framesDelivered > 0 }) { silent.append(cycle) }
            engine.disconnectMicrophone()
        }
        print("FIGURE file microphone: \(cycles - silent.count) of \(cycles) connects delivered frames; silent: \(silent)")
        #expect(silent.isEmpty, "connects that delivered no frame within 2 s: \(silent)")
    }
}
