import Foundation

/// Making a WAV that was cut short (a full disk, a crash) a valid one: its header's sizes are
/// set to what the file holds, so what was written plays.
extension OutputFiles {
    /// Sets the RIFF and data sizes of the WAV at `path` to the whole frames it holds (a partial
    /// frame at the end is cut off); returns the seconds it holds, or nil when it has no readable
    /// header (nothing to keep). Written in place: a full disk needs no more room for it.
    static func repairWAV(_ path: String) -> Double? {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 4096), header.count >= 44,
              String(decoding: header[0..<4], as: UTF8.self) == "RIFF", String(decoding: header[8..<12], as: UTF8.self) == "WAVE",
              let size = try? handle.seekToEnd() else { return nil }
        func u32(_ offset: Int) -> Int { Int(header[offset]) | Int(header[offset + 1]) << 8 | Int(header[offset + 2]) << 16 | Int(header[offset + 3]) << 24 }
        var offset = 12
        var frameBytes = 0, bytesPerSecond = 0
        while offset + 8 <= header.count {
            let id = String(decoding: header[offset..<offset + 4], as: UTF8.self)
            if id == "fmt ", offset + 24 <= header.count {
                bytesPerSecond = u32(offset + 16)
                frameBytes = Int(header[offset + 20]) | Int(header[offset + 21]) << 8
            }
            if id == "data" { break }
            offset += 8 + u32(offset + 4) + (u32(offset + 4) & 1)
        }
        let dataStart = offset + 8
        guard offset + 8 <= header.count, frameBytes > 0, bytesPerSecond > 0, Int(size) >= dataStart else { return nil }
        let dataBytes = (Int(size) - dataStart) / frameBytes * frameBytes
        func le32(_ value: Int) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]) }
        do {
            try handle.truncate(atOffset: UInt64(dataStart + dataBytes))
            try handle.seek(toOffset: 4)
            try handle.write(contentsOf: le32(dataStart + dataBytes - 8))
            try handle.seek(toOffset: UInt64(offset + 4))
            try handle.write(contentsOf: le32(dataBytes))
            try handle.synchronize()
        } catch {
            return nil
        }
        return Double(dataBytes) / Double(bytesPerSecond)
    }
}
