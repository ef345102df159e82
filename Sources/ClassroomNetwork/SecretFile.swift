import ClassroomEngine
import Foundation

/// A file that holds a secret (an SRTP key, an SDP with `a=crypto`): used only when it is a
/// regular file that its owner alone can read — a secret others can read is a secret others have.
enum SecretFile {
    /// Why `path` may not hold a secret, or nil when it may: not there, not a regular file, or
    /// readable by its group or others (with the chmod that mends it).
    static func refusal(of path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return "it cannot be read (\(String(cString: strerror(errno))))" }
        guard status.st_mode & S_IFMT == S_IFREG else { return "it is not a regular file" }
        guard status.st_mode & 0o077 == 0 else {
            return "others can read it (mode \(String(status.st_mode & 0o777, radix: 8))); make it readable by its owner only: chmod 600 \(path)"
        }
        return nil
    }

    /// The text of a short secret file, trimmed; `origin` names it in errors (never its content).
    static func text(of path: String) throws(EngineError) -> String {
        if let refusal = refusal(of: path) { throw .badKey(path, reason: refusal) }
        guard let data = FileManager.default.contents(atPath: path), data.count < 4096, let text = String(data: data, encoding: .utf8) else {
            throw .badKey(path, reason: "it cannot be read, or is not a short text file")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
