import Foundation

/// 16-bit mono PCM WAV files, as the measurements write and read them (espeak-ng via sox, PESQ's input).
public enum WaveFile {
    /// The bytes of a 16-bit mono WAV file.
    public static func bytes(_ samples: [Int16], rate: Int) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let length = UInt32(samples.count * 2)
        data.append(contentsOf: Array("RIFF".utf8)); append(36 + length)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
        append(UInt32(rate)); append(UInt32(rate * 2)); append(UInt16(2)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(length)
        for sample in samples { append(sample) }
        return data
    }

    /// The samples of a 16-bit mono WAV file (its `data` chunk as it is).
    public static func samples(at path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = Int(data[offset + 4..<offset + 8].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian })
            if id == "data" {
                let body = data[offset + 8..<min(data.count, offset + 8 + size)]
                return body.withUnsafeBytes { raw in (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) } }
            }
            offset += 8 + size + size % 2
        }
        throw MeasurementError("\(path) is not a WAV file with a data chunk")
    }
}
