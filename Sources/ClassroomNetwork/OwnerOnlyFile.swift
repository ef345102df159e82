import Foundation

/// A small file holding a secret (an SRTP key, a Janus token, API secret or pin), read only when
/// its owner alone can read it: a secret others can read is a secret others have.
enum OwnerOnlyFile {
    /// Why the file is not read: a sentence about "it", with what to do.
    struct Refusal: Error, Sendable {
        let reason: String
    }

    /// Throws unless `path` is a regular file with no permission for its group or others; a link
    /// is followed only when `followingLinks`.
    @discardableResult
    static func check(_ path: String, followingLinks: Bool) throws(Refusal) -> stat {
        var status = stat()
        guard (followingLinks ? stat(path, &status) : lstat(path, &status)) == 0 else {
            throw Refusal(reason: "it cannot be read (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Refusal(reason: "it is not a regular file") }
        guard status.st_mode & 0o077 == 0 else {
            throw Refusal(reason: "others can read it (mode \(String(status.st_mode & 0o777, radix: 8))); make it readable by its owner only: chmod 600 \(path)")
        }
        return status
    }

    /// The file's bytes (at most `maxBytes`), when `check` lets it be read.
    static func contents(atPath path: String, maxBytes: Int, followingLinks: Bool) throws(Refusal) -> Data {
        let status = try check(path, followingLinks: followingLinks)
        // Judged by its size before a byte is read: a huge (or sparse) file is never loaded whole.
        guard status.st_size <= maxBytes else { throw Refusal(reason: "it holds \(status.st_size) bytes, more than a secret (at most \(maxBytes))") }
        guard let data = BoundedFile.read(path, maxBytes: maxBytes) else { throw Refusal(reason: "it cannot be read (is it this user's?)") }
        guard data.count <= maxBytes else { throw Refusal(reason: "it holds more than \(maxBytes) bytes, more than a secret") }
        return data
    }
}
