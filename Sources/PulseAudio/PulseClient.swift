import CPulse

/// A client of the sound server's native protocol (PulseAudio, or PipeWire's pulse server) for the
/// few requests GStreamer's pulsesink cannot make safely: each call connects, asks, and
/// disconnects on the caller's thread, with a main loop and a lock of its own.
///
/// Why not pulsesink's `device` property: pulsesink 1.22 moves its stream under its process-wide
/// main loop lock and, when the stream has no index any more (the server killed it a moment
/// before), returns with that lock still held (`gst_pulsesink_set_stream_device`'s `no_index`
/// path). The next thread that needs the loop then waits for ever (GSTREAMER-WORKAROUNDS §1).
public struct PulseClient: Sendable {
    /// The client name the server shows (`pactl list clients`).
    public let name: String

    /// A client named `name`; it connects only when asked something.
    public init(name: String) {
        self.name = name
    }

    /// The server's name for its default sink, accepted wherever a sink name is.
    public static let defaultSink = "@DEFAULT_SINK@"

    /// Moves the playback stream whose property `key` is `value` (set with pulsesink's
    /// `stream-properties`) to the sink `sink`, or to the server's default sink when nil. Wraps
    /// `pa_context_get_sink_input_info_list` and `pa_context_move_sink_input_by_name`.
    public func movePlaybackStream(where key: String, is value: String, to sink: String?, within timeout: Duration) throws(PulseAudioError) {
        let connection = try PulseConnection(name: name, deadline: .now + timeout)
        let index = try connection.playbackStream(where: key, is: value)
        try connection.move(playbackStream: index, to: sink ?? Self.defaultSink)
    }

    /// The server's name for itself ("pulseaudio"; pipewire-pulse says "PulseAudio (on PipeWire …)").
    public func serverName(within timeout: Duration) throws(PulseAudioError) -> String {
        try PulseConnection(name: name, deadline: .now + timeout).serverName()
    }

    /// True when `serverName` is PipeWire's pulse server rather than PulseAudio itself.
    public static func isPipeWire(_ serverName: String) -> Bool {
        serverName.lowercased().contains("pipewire")
    }
}
