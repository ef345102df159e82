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
        try Self.writeTone(to: file, seconds: 1)
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

    /// A mono S16LE 48 kHz WAV of a 440 Hz tone.
    static func writeTone(to url: URL, seconds: Double) throws {
        let count = Int(48_000 * seconds)
        var data = Data()
        func append(_ value: UInt32, bytes: Int) { for index in 0..<bytes { data.append(UInt8((value >> (8 * UInt32(index))) & 0xff)) } }
        data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + count * 2), bytes: 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(16, bytes: 4); append(1, bytes: 2); append(1, bytes: 2)
        append(48_000, bytes: 4); append(96_000, bytes: 4); append(2, bytes: 2); append(16, bytes: 2)
        data.append(contentsOf: Array("data".utf8)); append(UInt32(count * 2), bytes: 4)
        for index in 0..<count {
            append(UInt32(UInt16(bitPattern: Int16(8_000 * sin(2 * Double.pi * 440 * Double(index) / 48_000)))), bytes: 2)
        }
        try data.write(to: url)
    }
}
