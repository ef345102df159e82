import Foundation

/// Far-end speech for echo measurements: espeak-ng, written once per process.
public enum SpeechSample {
    /// What the far end says (about 12.5 s at 150 words a minute).
    public static let text = "Good morning everyone. Today we are going to read the story about the water cycle. The sun warms the sea and the water rises into the sky. Please listen carefully and repeat after me."

    /// The path of a WAV file with the speech; written on first use.
    public static func farEnd() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-far-end-\(getpid()).wav").path
        if FileManager.default.fileExists(atPath: path) { return path }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", "en-us", "-s", "150", "-w", path, text]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MeasurementError("espeak-ng failed (exit \(process.terminationStatus)); it comes from the Debian package espeak-ng") }
        return path
    }
}
