import Foundation

/// A path named for output (`--output wav:`, `--uplink wav:`, `--uplink-sdp`, `--events`), judged
/// by what is there: a regular file or a new path may be written beside and renamed over; a
/// device or a FIFO is written through as it is (renaming over `/dev/null` made it a file); a
/// symbolic link is followed, and where it leads is judged the same way (the link is kept).
struct OutputPath {
    /// What the path leads to.
    enum Kind: Equatable {
        /// A regular file, or nothing yet.
        case file
        /// A character or block device (`/dev/null`, a sound card's raw node).
        case device
        /// A named pipe, read by another program.
        case fifo
    }

    /// The path as the user gave it.
    let named: String
    /// The path written: `named`, or where its symbolic links lead.
    let target: String
    let kind: Kind

    /// Links followed before giving up (Linux's own limit, MAXSYMLINKS).
    private static let linkLimit = 40

    /// Judges `path`; throws for a directory, a socket, a link loop or a FIFO nobody reads.
    init(_ path: String, role: String) throws(PlayerError) {
        named = path
        guard !path.hasSuffix("/") else { throw .cannotWrite(role: role, path: path, reason: "it names a directory (it ends with '/'); name a file in it") }
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        var hops = 0
        var info = stat()
        while lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            hops += 1
            guard hops <= OutputPath.linkLimit, let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                throw .cannotWrite(role: role, path: path, reason: "it is a symbolic link that does not lead to a file (a loop?)")
            }
            current = destination.hasPrefix("/") ? destination
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(destination).standardizedFileURL.path
        }
        target = current
        guard lstat(current, &info) == 0 else {
            guard errno == ENOENT else { throw .cannotWrite(role: role, path: path, reason: String(cString: strerror(errno))) }
            kind = .file
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFCHR, S_IFBLK: kind = .device
        case S_IFIFO: kind = .fifo
        case S_IFDIR: throw .cannotWrite(role: role, path: path, reason: "it is a directory; name a file in it")
        default: throw .cannotWrite(role: role, path: path, reason: "it is a socket or another special file, not a file, a device or a FIFO")
        }
    }

    /// Whether the file is written beside and renamed over (a regular file or a new path).
    var isReplaced: Bool { kind == .file }

    /// What to tell the user about how the path is written, when it is not a plain file path.
    var note: String? {
        var parts: [String] = []
        if target != URL(fileURLWithPath: named).standardizedFileURL.path { parts.append("is a symbolic link: writing to \(target), where it leads (the link is kept)") }
        switch kind {
        case .file: break
        case .device: parts.append("is a device: written through as it is")
        case .fifo: parts.append("is a FIFO: written through to its reader")
        }
        return parts.isEmpty ? nil : "\(named) " + parts.joined(separator: "; ")
    }

    /// Opens the device or FIFO for writing now. A FIFO is opened without waiting: with no
    /// reader that fails (ENXIO) and is said so, instead of hanging before anything plays.
    /// The caller keeps the descriptor open for the run, so the reader never sees an early end.
    func openWriteThrough(role: String) throws(PlayerError) -> FileHandle {
        let descriptor = open(target, O_WRONLY | O_CLOEXEC | (kind == .fifo ? O_NONBLOCK : 0))
        guard descriptor >= 0 else {
            let why = errno == ENXIO && kind == .fifo ? "no program is reading the FIFO; start its reader first" : String(cString: strerror(errno))
            throw .cannotWrite(role: role, path: named, reason: why)
        }
        // Writes then wait for a slow reader instead of failing with EAGAIN.
        if kind == .fifo { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes `data` whole: beside and renamed over a file, through a device or FIFO. With
    /// `ownerOnly` (it holds a secret, such as an SDP's SRTP key) a file is mode 600 from its creation.
    func write(_ data: Data, role: String, ownerOnly: Bool = false) throws(PlayerError) {
        do {
            if isReplaced {
                try FileManager.default.createDirectory(at: URL(fileURLWithPath: target).deletingLastPathComponent(), withIntermediateDirectories: true)
                if ownerOnly { try writePrivately(data, role: role) } else { try data.write(to: URL(fileURLWithPath: target), options: .atomic) }
            } else {
                let handle = try openWriteThrough(role: role)
                defer { try? handle.close() }
                try handle.write(contentsOf: data)
            }
        } catch let error as PlayerError {
            throw error
        } catch {
            throw .cannotWrite(role: role, path: named, reason: PlayerError.reason(error))
        }
    }

    /// Beside and renamed over, as `.atomic` does, but the file beside is created mode 600: no moment
    /// when others could open it.
    private func writePrivately(_ data: Data, role: String) throws(PlayerError) {
        let beside = target + ".\(getpid()).tmp"
        let descriptor = open(beside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotWrite(role: role, path: named, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            unlink(beside)
            throw .cannotWrite(role: role, path: named, reason: PlayerError.reason(error))
        }
        guard rename(beside, target) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(beside)
            throw .cannotWrite(role: role, path: named, reason: why)
        }
    }
}
