import Foundation
import Synchronization

/// The WAV files a run writes (the mix, the uplink). A regular file (or a new path) is written
/// under a temporary name beside its final one and renamed only once it is finalised: a run that
/// fails or is killed never replaces a good recording with a broken one. A device or a FIFO is
/// written through as it is, never renamed over (see `OutputPath`).
final class OutputFiles: Sendable {
    private struct Entry {
        let final: String
        let role: String
        /// Written beside and renamed over; false for a device or FIFO written through.
        let replaced: Bool
    }

    private let files = Mutex<[String: Entry]>([:])
    /// Temporary files already renamed or removed (their names still map to the final ones).
    private let settled = Mutex<Set<String>>([])
    /// Where each temporary file not finalised was kept (NAME.incomplete).
    private let kept = Mutex<[String: String]>([:])
    /// Devices and FIFOs held open for the run: a FIFO's reader must not see an end between the
    /// check and the engine's own open.
    private let held = Mutex<[FileHandle]>([])
    /// How the paths are written, when not as plain files (a link followed, a device written through).
    let notes = Mutex<[String]>([])

    /// Judges the path, creates the folder and the temporary file (so an unwritable path fails
    /// before anything plays); returns the path to write.
    func reserve(_ path: String, role: String) throws(PlayerError) -> String {
        let output = try OutputPath(path, role: role)
        if let note = output.note { notes.withLock { $0.append("the \(role) \(note)") } }
        guard output.isReplaced else {
            let handle = try output.openWriteThrough(role: role)
            held.withLock { $0.append(handle) }
            files.withLock { $0[output.target] = Entry(final: output.target, role: role, replaced: false) }
            return output.target
        }
        let url = URL(fileURLWithPath: output.target)
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(role: role, path: path, reason: PlayerError.reason(error))
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).writing-\(getpid())").path
        // Owner-only from its creation: a recording holds the class's voices.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .cannotWrite(role: role, path: path, reason: "no file can be created in \(folder.path) (\(String(cString: strerror(errno))))")
        }
        close(descriptor)
        files.withLock { $0[temporary] = Entry(final: output.target, role: role, replaced: true) }
        return temporary
    }

    /// The path the user named for a temporary one (itself for any other); after `commit`,
    /// where the file is (NAME.incomplete when it could not be finalised).
    func finalPath(_ path: String) -> String {
        if let kept = kept.withLock({ $0[path] }) { return kept }
        return files.withLock { $0[path]?.final } ?? path
    }

    /// Renames every finalised file to its name; a file that is not a complete WAV (cut short by
    /// a full disk or a failure) gets a header that matches what it holds, is kept as
    /// NAME.incomplete, and the old file at NAME is left alone. Returns what to tell the user.
    func commit() -> [String] {
        defer { releaseHeld() }
        let all = unsettled()
        var notes: [String] = []
        for (temporary, target) in all.sorted(by: { $0.key < $1.key }) where target.replaced {
            if OutputFiles.isFinalisedWAV(temporary) {
                if rename(temporary, target.final) != 0 {
                    notes.append("the \(target.role) could not be renamed to \(target.final) (\(String(cString: strerror(errno)))); it is at \(temporary)")
                }
            } else {
                let seconds = OutputFiles.repairWAV(temporary)
                let keptPath = target.final + ".incomplete"
                let renamed = rename(temporary, keptPath) == 0
                let location = renamed ? keptPath : temporary
                kept.withLock { $0[temporary] = location }
                let what = seconds.map { "what was written (\(String(format: "%.1f", $0)) s) is a valid WAV in \(location)" } ?? "what was written is in \(location)"
                notes.append("the \(target.role) was not finalised; \(what), and \(target.final) was left as it was")
            }
        }
        return notes
    }

    /// Removes every temporary file: nothing was played. Devices and FIFOs are left as they are.
    func discard() {
        defer { releaseHeld() }
        for (temporary, entry) in unsettled() where entry.replaced { unlink(temporary) }
    }

    private func releaseHeld() {
        for handle in held.withLock({ held in defer { held = [] }; return held }) { try? handle.close() }
    }

    /// The files not yet renamed or removed, now marked as settled.
    private func unsettled() -> [String: Entry] {
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
