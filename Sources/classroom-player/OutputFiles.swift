import Foundation
import Synchronization

/// The WAV files a run writes (the mix, the uplink), each written under a temporary name beside
/// its final one and renamed only once it is finalised: a run that fails or is killed never
/// replaces a good recording with a broken one.
final class OutputFiles: Sendable {
    private let files = Mutex<[String: (final: String, role: String)]>([:])
    /// Temporary files already renamed or removed (their names still map to the final ones).
    private let settled = Mutex<Set<String>>([])

    /// Creates the folder and the temporary file (so an unwritable path fails before anything
    /// plays); returns the temporary path to write.
    func reserve(_ path: String, role: String) throws(PlayerError) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(role: role, path: path, reason: PlayerError.reason(error))
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .cannotWrite(role: role, path: path, reason: "it is a directory")
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).writing-\(getpid())").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw .cannotWrite(role: role, path: path, reason: "no file can be created in \(folder.path)")
        }
        files.withLock { $0[temporary] = (url.path, role) }
        return temporary
    }

    /// The path the user named for a temporary one (itself for any other).
    func finalPath(_ path: String) -> String { files.withLock { $0[path]?.final } ?? path }

    /// Renames every finalised file to its name; a file that is not a complete WAV is kept as
    /// NAME.incomplete and the old file at NAME is left alone. Returns what to tell the user.
    func commit() -> [String] {
        let all = unsettled()
        var notes: [String] = []
        for (temporary, target) in all.sorted(by: { $0.key < $1.key }) {
            if OutputFiles.isFinalisedWAV(temporary) {
                if rename(temporary, target.final) != 0 {
                    notes.append("the \(target.role) could not be renamed to \(target.final) (\(String(cString: strerror(errno)))); it is at \(temporary)")
                }
            } else {
                let kept = target.final + ".incomplete"
                _ = rename(temporary, kept)
                notes.append("the \(target.role) was not finalised; what was written is in \(kept), and \(target.final) was left as it was")
            }
        }
        return notes
    }

    /// Removes every temporary file: nothing was played.
    func discard() {
        for temporary in unsettled().keys { unlink(temporary) }
    }

    /// The files not yet renamed or removed, now marked as settled.
    private func unsettled() -> [String: (final: String, role: String)] {
        let all = files.withLock { $0 }
        return settled.withLock { done in
            let open = all.filter { !done.contains($0.key) }
            done.formUnion(open.keys)
            return open
        }
    }

    /// A RIFF/WAVE file whose sizes match the file (the header was written at the end).
    static func isFinalisedWAV(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 12), header.count == 12,
              String(decoding: header[0..<4], as: UTF8.self) == "RIFF", String(decoding: header[8..<12], as: UTF8.self) == "WAVE",
              let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else { return false }
        let declared = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
        return declared == size - 8
    }
}
