import Foundation
import Testing

/// Media the tests make, files they read back, and the repository's samples.
enum Fixtures {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A sample from `samples/`.
    static func sample(_ name: String) -> String { root.appendingPathComponent("samples/\(name)").path }

    /// A fresh temporary folder.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-player-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs gst-launch-1.0 to the end.
    static func gstLaunch(_ description: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = ["-q"] + description.split(separator: " ").map(String.init)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("gst-launch-1.0 \(description)") }
    }

    /// A WAV lesson: a sine of `frequency` Hz at amplitude `volume` (0 = digital silence), 48 kHz stereo.
    static func toneLesson(at url: URL, seconds: Int, frequency: Int = 440, volume: Double = 0.1) throws {
        let wave = volume > 0 ? "wave=sine freq=\(frequency) volume=\(volume)" : "wave=silence"
        try gstLaunch("audiotestsrc num-buffers=\(seconds * 10) samplesperbuffer=4800 \(wave) ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! wavenc ! filesink location=\(url.path)")
    }

    /// The event lines of an events file, parsed.
    static func events(_ url: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The events called `name`.
    static func events(_ url: URL, named name: String) -> [[String: Any]] {
        events(url).filter { $0["event"] as? String == name }
    }
}

/// A 16-bit PCM WAV read back: its header checked against the file, its samples as Float.
struct WAVFile {
    let rate: Int
    let channels: Int
    /// Channel 0, −1…1.
    let samples: [Float]
    /// Whether the RIFF and data sizes in the header match the file (a finalised file).
    let headerMatchesFile: Bool

    init(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        guard data.count >= 44, String(decoding: data[0..<4], as: UTF8.self) == "RIFF", String(decoding: data[8..<12], as: UTF8.self) == "WAVE" else {
            throw PlayerTestError.setupFailed("\(url.path) is not a WAV file (\(data.count) bytes)")
        }
        func u32(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24 }
        func u16(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }
        var offset = 12
        var rate = 0, channels = 0, bits = 0
        var dataRange: Range<Int>?
        var declaredData = 0
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " { channels = u16(offset + 10); rate = u32(offset + 12); bits = u16(offset + 22) }
            if id == "data" {
                declaredData = size
                dataRange = (offset + 8)..<min(data.count, offset + 8 + size)
                break
            }
            offset += 8 + size + (size & 1)
        }
        guard let dataRange, bits == 16, channels > 0 else { throw PlayerTestError.setupFailed("\(url.path): no 16-bit data chunk") }
        self.rate = rate
        self.channels = channels
        headerMatchesFile = u32(4) == data.count - 8 && dataRange.lowerBound + declaredData == data.count
        var samples: [Float] = []
        samples.reserveCapacity(dataRange.count / (2 * channels))
        var index = dataRange.lowerBound
        while index + 2 * channels <= dataRange.upperBound {
            samples.append(Float(Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8)) / 32768)
            index += 2 * channels
        }
        self.samples = samples
    }

    /// Seconds of audio.
    var seconds: Double { Double(samples.count) / Double(rate) }

    /// RMS in dBFS of channel 0 between two times.
    func rms(from start: Double, to end: Double) -> Double {
        let lower = max(0, Int(start * Double(rate))), upper = min(samples.count, Int(end * Double(rate)))
        guard upper > lower else { return -.infinity }
        var sum = 0.0
        for sample in samples[lower..<upper] { sum += Double(sample) * Double(sample) }
        return 10 * log10(max(sum / Double(upper - lower), 1e-20))
    }

    /// The first time a 50 ms window rises above `threshold` dBFS.
    func onset(above threshold: Double) -> Double? {
        stride(from: 0.0, to: seconds, by: 0.05).first { rms(from: $0, to: $0 + 0.05) > threshold }
    }
}
