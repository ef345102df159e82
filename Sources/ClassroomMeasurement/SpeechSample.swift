import Foundation

/// Far-end speech for echo measurements: espeak-ng, written once per process.
public enum SpeechSample {
    /// What the far end says (about 12.5 s at 150 words a minute).
    public static let text = "Good morning everyone. Today we are going to read the story about the water cycle. The sun warms the sea and the water rises into the sky. Please listen carefully and repeat after me."

    /// What the student says while the teacher talks (about 4 s).
    public static let studentText = "Excuse me teacher, why does the water rise into the sky?"

    /// A student who goes on talking (about 8 s): what a level control is measured on.
    public static let longStudentText = studentText + " Is it because the sun makes it warm, and warm air goes up?"

    /// The student's speech in another voice as a 16-bit 48 kHz mono WAV (what the room rig takes); written on first use.
    public static func nearEnd() throws -> String { try student(saying: studentText, name: "near-end") }

    /// The student saying `longStudentText`, as `nearEnd()`; written on first use.
    public static func longNearEnd() throws -> String { try student(saying: longStudentText, name: "long-near-end") }

    private static func student(saying text: String, name: String) throws -> String {
        try speech(text, voice: "en-us+f3", wordsPerMinute: 150, name: name)
    }

    /// `text` spoken by espeak-ng's `voice` at `wordsPerMinute`, as a 16-bit 48 kHz mono WAV (what
    /// the room rig takes); written once per process under `name`.
    public static func speech(_ text: String, voice: String, wordsPerMinute: Int, name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-\(name)-\(getpid()).wav").path
        if FileManager.default.fileExists(atPath: path) { return path }
        let raw = path + ".espeak.wav"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try run("/usr/bin/espeak-ng", ["-v", voice, "-s", "\(wordsPerMinute)", "-w", raw, text], package: "espeak-ng")
        try run("/usr/bin/sox", [raw, "-r", "48000", "-c", "1", "-b", "16", path], package: "sox")
        return path
    }

    private static func run(_ executable: String, _ arguments: [String], package: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MeasurementError("\(executable) failed (exit \(process.terminationStatus)); it comes from the Debian package \(package)") }
    }

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
