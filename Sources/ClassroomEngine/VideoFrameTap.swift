import GStreamer

/// Receives a lesson's video frames as they are presented: on the video sink's streaming
/// thread, at the frame's running time plus the engine's output latency (measurement: A/V sync).
/// Frames decoded while the lesson goes to PLAYING (measured: up to its first 0.5 s) are handed
/// over at once when it starts. The handler must not block.
public final class VideoFrameTap: Sendable, Hashable {
    /// The raw video format the frames are converted to, e.g. "GRAY8" (one luma byte per pixel).
    public let format: String
    let handler: @Sendable (Sample) -> Void

    /// A tap receiving frames converted to `format`.
    public init(format: String = "GRAY8", _ handler: @escaping @Sendable (Sample) -> Void) {
        self.format = format
        self.handler = handler
    }

    public static func == (lhs: VideoFrameTap, rhs: VideoFrameTap) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
