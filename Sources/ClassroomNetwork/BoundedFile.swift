import Foundation

/// Reads a small file without ever holding more of it than asked: a file that grew, or a device
/// that never ends, costs at most `maxBytes + 1` bytes, and a FIFO or device is not opened at all.
enum BoundedFile {
    /// The first `maxBytes + 1` bytes of the regular file at `path` (one more than allowed, so a
    /// caller can tell "too large"); nil when it cannot be opened or is not a regular file.
    static func read(_ path: String, maxBytes: Int) -> Data? {
        // O_NONBLOCK: opening a FIFO never waits for a writer; the type is checked on the open file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? handle.read(upToCount: maxBytes + 1) ?? Data()
    }

    /// Why `path` is not a small regular file of at most `maxBytes`, or nil when it is one.
    static func refusal(_ path: String, maxBytes: Int) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return "it cannot be read (\(String(cString: strerror(errno))))" }
        guard status.st_mode & S_IFMT == S_IFREG else { return "it is not a regular file (a FIFO, a device or a folder is never read)" }
        guard status.st_size <= maxBytes else { return "it holds \(status.st_size) bytes, more than the \(maxBytes) it may" }
        return nil
    }
}
