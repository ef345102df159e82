import Foundation

/// PESQ-WB (ITU-T P.862.2) through the `pesq` package in the project's .venv
/// (scripts/python-venv.sh, which `make bench` runs) and scripts/measure/pesq_wb.py.
public struct SpeechQuality: Sendable {
    let python: String
    let script: String

    /// The tooling under a repository root; nil when the venv is missing (run scripts/python-venv.sh).
    /// `CLASSROOM_VENV` names another venv folder: a Debian 13 root sharing this tree has its own Python.
    public init?(root: URL) {
        let venv = ProcessInfo.processInfo.environment["CLASSROOM_VENV"] ?? ".venv"
        python = root.appendingPathComponent(venv + "/bin/python").path
        script = root.appendingPathComponent("scripts/measure/pesq_wb.py").path
        guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
    }

    /// The MOS-LQO of each `degraded` signal (16-bit mono at `rate`) against the `reference` WAV.
    public func pesqWideband(reference: String, degraded: [[Int16]], rate: Int) throws -> [Double] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pesq-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try degraded.enumerated().map { index, samples in
            let path = folder.appendingPathComponent("degraded-\(index).wav")
            try WaveFile.bytes(samples, rate: rate).write(to: path)
            return path.path
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, reference] + paths
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let scores = text.split(separator: "\n").compactMap { Double($0) }
        guard process.terminationStatus == 0, scores.count == degraded.count else {
            throw MeasurementError("PESQ-WB failed (exit \(process.terminationStatus)): \(complaint.suffix(400)); run scripts/python-venv.sh")
        }
        return scores
    }
}
