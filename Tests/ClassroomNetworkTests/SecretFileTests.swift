import ClassroomEngine
import Foundation
import Testing
@testable import ClassroomNetwork

/// Secret files (SRTP keys, Janus tokens and pins) are judged by their size before a byte is read.
@Suite("Secret files: an oversized one is refused without being read")
struct SecretFileTests {
    @Test("an 8 GB sparse key file, mode 600, is refused by its size at once, and a FIFO is never opened")
    func oversized() throws {
        let folder = try TestFolder.make("secrets")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("huge.key").path
        #expect(FileManager.default.createFile(atPath: key, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(truncate(key, 1 << 33) == 0)
        var refusal = ""
        // Refused by the size stat gives, before any read (a read would hold 8 GB).
        do { _ = try SRTPKey(file: key) } catch { refusal = error.description }
        #expect(refusal.contains("8589934592 bytes, more than a secret"), "\(refusal)")
        let fifo = folder.appendingPathComponent("fifo.key").path
        #expect(mkfifo(fifo, 0o600) == 0)
        do { _ = try SRTPKey(file: fifo) } catch { refusal = error.description }
        #expect(refusal.contains("not a regular file"), "\(refusal)")
    }
}
