import CGStreamer

/// A set of media formats (`GstCaps`). Immutable once created; one reference held.
public final class Caps: CustomStringConvertible {
    let gstCaps: UnsafeMutablePointer<GstCaps>

    /// Takes over a reference the caller owns (transfer full).
    init(adopting caps: UnsafeMutablePointer<GstCaps>) { gstCaps = caps }

    /// Takes a new reference (transfer none).
    init(retaining caps: UnsafeMutablePointer<GstCaps>) {
        gstCaps = caps
        gst_mini_object_ref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self))
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(gstCaps).assumingMemoryBound(to: GstMiniObject.self)) }

    /// Parses caps such as "audio/x-raw,format=S16LE,rate=48000,channels=1" (wraps `gst_caps_from_string`).
    public convenience init(_ text: String) throws(GStreamerError) {
        try GStreamer.initialize()
        guard let caps = gst_caps_from_string(text) else { throw .invalidCaps(text) }
        self.init(adopting: caps)
    }

    /// Caps that accept anything (wraps `gst_caps_new_any`).
    public static func any() -> Caps { Caps(adopting: gst_caps_new_any()) }

    /// Raw interleaved audio caps for a sample format, rate and channel count.
    public static func audio(_ format: SampleFormat, rate: Int, channels: Int) -> Caps {
        // The string is well-formed by construction, so parsing cannot fail.
        let text = "audio/x-raw,format=\(format.gstName),rate=(int)\(rate),channels=(int)\(channels),layout=interleaved"
        return Caps(adopting: gst_caps_from_string(text) ?? gst_caps_new_any())
    }

    /// The caps as text (wraps `gst_caps_to_string`).
    public var description: String {
        guard let text = gst_caps_to_string(gstCaps) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Number of structures.
    public var count: Int { Int(gst_caps_get_size(gstCaps)) }
    /// True for ANY caps.
    public var isAny: Bool { gst_caps_is_any(gstCaps) != 0 }
    /// True for EMPTY caps.
    public var isEmpty: Bool { gst_caps_is_empty(gstCaps) != 0 }
    /// True when fully specified (one structure, no ranges).
    public var isFixed: Bool { gst_caps_is_fixed(gstCaps) != 0 }

    /// A copy of the structure at `index` (wraps `gst_caps_get_structure`).
    public func structure(at index: Int = 0) -> Structure? {
        guard index >= 0, index < count, let structure = gst_caps_get_structure(gstCaps, guint(index)) else { return nil }
        return Structure(copying: structure)
    }

    /// True when both describe the same formats (wraps `gst_caps_is_equal`).
    public func isEqual(to other: Caps) -> Bool { gst_caps_is_equal(gstCaps, other.gstCaps) != 0 }
    /// True when the two have a format in common (wraps `gst_caps_can_intersect`).
    public func canIntersect(_ other: Caps) -> Bool { gst_caps_can_intersect(gstCaps, other.gstCaps) != 0 }
    /// The formats common to both (wraps `gst_caps_intersect`).
    public func intersect(_ other: Caps) -> Caps { Caps(adopting: gst_caps_intersect(gstCaps, other.gstCaps)) }
    /// True when every format here is also in `other` (wraps `gst_caps_is_subset`).
    public func isSubset(of other: Caps) -> Bool { gst_caps_is_subset(gstCaps, other.gstCaps) != 0 }

    /// The raw audio format these fixed caps describe, if they are raw audio (wraps `gst_audio_info_from_caps`).
    public var audioFormat: AudioFormat? {
        var info = GstAudioInfo()
        guard gst_audio_info_from_caps(&info, gstCaps) != 0, let finfo = info.finfo else { return nil }
        let name = String(cString: gst_audio_format_to_string(finfo.pointee.format))
        guard let format = SampleFormat(gstName: name) else { return nil }
        return AudioFormat(format: format, rate: Int(info.rate), channels: Int(info.channels),
                           interleaved: info.layout == GST_AUDIO_LAYOUT_INTERLEAVED)
    }
}

// GstCaps are immutable once shared and refcounted atomically.
extension Caps: @unchecked Sendable {}

/// A raw audio sample format the bindings push and pull.
public enum SampleFormat: String, Sendable, Hashable, CaseIterable {
    /// Signed 16-bit little endian.
    case s16 = "S16LE"
    /// 32-bit float little endian.
    case f32 = "F32LE"

    /// GStreamer's format name.
    public var gstName: String { rawValue }
    /// Bytes per sample.
    public var bytesPerSample: Int { self == .s16 ? 2 : 4 }

    init?(gstName: String) { self.init(rawValue: gstName) }
}

/// A complete raw audio format: sample format, rate, channels, layout.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Sample format.
    public var format: SampleFormat
    /// Frames per second.
    public var rate: Int
    /// Channels per frame.
    public var channels: Int
    /// Interleaved (the only layout the bindings push and pull).
    public var interleaved: Bool

    /// A format; interleaved unless said otherwise.
    public init(format: SampleFormat, rate: Int, channels: Int, interleaved: Bool = true) {
        self.format = format; self.rate = rate; self.channels = channels; self.interleaved = interleaved
    }

    /// Bytes per frame (all channels).
    public var bytesPerFrame: Int { format.bytesPerSample * channels }
    /// The caps for this format.
    public var caps: Caps { Caps.audio(format, rate: rate, channels: channels) }
    /// "S16LE 48000 Hz ×1".
    public var description: String { "\(format.rawValue) \(rate) Hz ×\(channels)" }
}
