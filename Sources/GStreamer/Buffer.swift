import CGStreamer

/// Flags on a buffer (`GstBufferFlags`).
public struct BufferFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Produced by a live source (`GST_BUFFER_FLAG_LIVE`).
    public static let live = BufferFlags(rawValue: GST_BUFFER_FLAG_LIVE.rawValue)
    /// A discontinuity: data before it is missing or was dropped (`GST_BUFFER_FLAG_DISCONT`).
    public static let discont = BufferFlags(rawValue: GST_BUFFER_FLAG_DISCONT.rawValue)
    /// Data may be corrupted (`GST_BUFFER_FLAG_CORRUPTED`).
    public static let corrupted = BufferFlags(rawValue: GST_BUFFER_FLAG_CORRUPTED.rawValue)
    /// Stream header (`GST_BUFFER_FLAG_HEADER`).
    public static let header = BufferFlags(rawValue: GST_BUFFER_FLAG_HEADER.rawValue)
    /// Silence or no data: the content should be ignored (`GST_BUFFER_FLAG_GAP`).
    public static let gap = BufferFlags(rawValue: GST_BUFFER_FLAG_GAP.rawValue)
    /// Can be dropped (`GST_BUFFER_FLAG_DROPPABLE`).
    public static let droppable = BufferFlags(rawValue: GST_BUFFER_FLAG_DROPPABLE.rawValue)
    /// Not a key frame (`GST_BUFFER_FLAG_DELTA_UNIT`).
    public static let deltaUnit = BufferFlags(rawValue: GST_BUFFER_FLAG_DELTA_UNIT.rawValue)
    /// Resynchronisation point (`GST_BUFFER_FLAG_RESYNC`).
    public static let resync = BufferFlags(rawValue: GST_BUFFER_FLAG_RESYNC.rawValue)
}

/// A read-only view of a media buffer (`GstBuffer`), holding one reference.
///
/// Timestamps and flags are read from the buffer; the data is copied out or mapped for reading on
/// request, so nothing here lets a caller write into a buffer that is still in flight.
public final class Buffer {
    let gstBuffer: UnsafeMutablePointer<GstBuffer>

    /// Takes a new reference (transfer none).
    init(retaining buffer: UnsafeMutablePointer<GstBuffer>) {
        gstBuffer = buffer
        gst_mini_object_ref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(gstBuffer).assumingMemoryBound(to: GstMiniObject.self)) }

    /// Presentation timestamp (GST_BUFFER_PTS).
    public var pts: ClockTime? { ClockTime(raw: gstBuffer.pointee.pts) }
    /// Decoding timestamp (GST_BUFFER_DTS).
    public var dts: ClockTime? { ClockTime(raw: gstBuffer.pointee.dts) }
    /// Duration (GST_BUFFER_DURATION).
    public var duration: ClockTime? { ClockTime(raw: gstBuffer.pointee.duration) }
    /// Media-specific offset; for raw audio the sample offset (GST_BUFFER_OFFSET).
    public var offset: UInt64? { gstBuffer.pointee.offset == guint64.max ? nil : UInt64(gstBuffer.pointee.offset) }
    /// Flags (GST_BUFFER_FLAGS).
    public var flags: BufferFlags { BufferFlags(rawValue: gstBuffer.pointee.mini_object.flags) }
    /// Size in bytes (wraps `gst_buffer_get_size`).
    public var size: Int { Int(gst_buffer_get_size(gstBuffer)) }

    /// A copy of the data (wraps `gst_buffer_extract`).
    public func bytes() -> [UInt8] {
        let count = size
        return [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            initialized = Int(gst_buffer_extract(gstBuffer, 0, storage.baseAddress, gsize(count)))
        }
    }

    /// Where a received packet came from, as `address:port` (`[address]:port` for IPv6); nil when
    /// the source attached no sender (wraps `gst_buffer_get_net_address_meta`, which udpsrc fills).
    public var senderAddress: String? {
        guard let socketAddress = cgst_buffer_net_address(gstBuffer), let inet = cgst_inet_socket_address(socketAddress),
              let address = g_inet_socket_address_get_address(inet), let text = g_inet_address_to_string(address) else { return nil }
        defer { g_free(text) }
        let host = String(cString: text)
        let port = g_inet_socket_address_get_port(inet)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The data as interleaved signed 16-bit samples (the buffer must hold S16LE).
    public func int16Samples() -> [Int16] { samples(of: Int16.self) }

    /// Reads the data as interleaved signed 16-bit samples without copying them: maps the buffer
    /// for reading while `body` runs (wraps `gst_buffer_map`); nil when it cannot be mapped.
    public func withInt16Samples<Result>(_ body: (UnsafeBufferPointer<Int16>) -> Result) -> Result? {
        var map = GstMapInfo()
        guard gst_buffer_map(gstBuffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(gstBuffer, &map) }
        guard let base = map.data else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let count = Int(map.size) / MemoryLayout<Int16>.stride
        return body(UnsafeBufferPointer(start: UnsafeRawPointer(base).bindMemory(to: Int16.self, capacity: count), count: count))
    }

    /// The data as interleaved 32-bit float samples (the buffer must hold F32LE).
    public func floatSamples() -> [Float] { samples(of: Float.self) }

    private func samples<T>(of type: T.Type) -> [T] {
        let count = size / MemoryLayout<T>.stride
        return [T](unsafeUninitializedCapacity: count) { storage, initialized in
            let copied = gst_buffer_extract(gstBuffer, 0, storage.baseAddress, gsize(count * MemoryLayout<T>.stride))
            initialized = Int(copied) / MemoryLayout<T>.stride
        }
    }
}

// Buffers are refcounted atomically and this view never writes to one.
extension Buffer: @unchecked Sendable {}

/// A buffer with its caps and segment, as pulled from an appsink (`GstSample`).
public final class Sample {
    let gstSample: OpaquePointer

    /// Takes over a reference (transfer full).
    init(adopting sample: OpaquePointer) { gstSample = sample }

    deinit { gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(gstSample)) }

    /// The buffer (wraps `gst_sample_get_buffer`).
    public var buffer: Buffer? { gst_sample_get_buffer(gstSample).map(Buffer.init(retaining:)) }

    /// The caps of the data (wraps `gst_sample_get_caps`).
    public var caps: Caps? { gst_sample_get_caps(gstSample).map(Caps.init(retaining:)) }

    /// The buffer's PTS converted to running time with the sample's segment (wraps `gst_segment_to_running_time`).
    public var runningTime: ClockTime? {
        guard let segment = gst_sample_get_segment(gstSample), let buffer = gst_sample_get_buffer(gstSample) else { return nil }
        return ClockTime(raw: gst_segment_to_running_time(segment, GST_FORMAT_TIME, buffer.pointee.pts))
    }
}

// Samples are immutable once pulled and refcounted atomically.
extension Sample: @unchecked Sendable {}
