import CGStreamer
import Foundation

extension Pad {
    /// Adds a buffer probe that puts each S16 buffer's audio level on it as a `GstAudioLevelMeta`
    /// (RFC 6464: -dBov, 0 to 127), which an RTP payloader with the audio-level header extension
    /// writes into its packet; the voice flag is set when the level is above `voiceAbove` dBov (a
    /// loudness gate, not a voice detector). Encoders carry the meta to their output. The buffer is
    /// made writable only to take the meta (copied when someone else holds it). Keep the token.
    public func addAudioLevelMarker(voiceAbove: Double = -50) -> PadProbe? {
        addProbe(.buffer, box: PadProbeBox { _, info in
            guard let data = info.pointee.data else { return GST_PAD_PROBE_OK }
            let buffer = data.assumingMemoryBound(to: GstBuffer.self)
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return GST_PAD_PROBE_OK }
            let level = map.data.map { Pad.audioLevel(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: Int16.self), count: Int(map.size) / 2)) } ?? 127
            gst_buffer_unmap(buffer, &map)
            guard let writable = info.writableBuffer() else { return GST_PAD_PROBE_OK }
            gst_buffer_add_audio_level_meta(writable, level, -Double(level) > voiceAbove ? 1 : 0)
            return GST_PAD_PROBE_OK
        })
    }

    /// RFC 6464's level of `samples`: their RMS in -dBov (0 dBov: a full-scale square wave), 0 to
    /// 127, 127 for silence.
    static func audioLevel(_ samples: UnsafeBufferPointer<Int16>) -> UInt8 {
        guard !samples.isEmpty else { return 127 }
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        guard power > 0 else { return 127 }
        let dBov = 10 * log10(power / (32768.0 * 32768.0))
        return UInt8(min(127, max(0, (-dBov).rounded())))
    }
}
