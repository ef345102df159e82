import ClassroomAudio
import ClassroomEngine
import GStreamer

/// The sound server's devices as the session sees them, listed once (`devices`, and checking a
/// device named on the command line before the player starts its own watch).
struct DeviceListing {
    /// Whether a sound server answered.
    let soundServer: Bool
    /// Outputs and inputs, in the order the monitor reported them.
    let devices: [AudioDevice]

    /// Lists the devices now. The monitor is stopped before this returns: one monitor at a time
    /// per process (GSTREAMER-NOTES §5, DeviceMonitor's documentation).
    static func current() throws(GStreamerError) -> DeviceListing {
        guard try soundServerAnswers() else { return DeviceListing(soundServer: false, devices: []) }
        let monitor = try DeviceMonitor.audio()
        try monitor.start()
        defer { monitor.stop() }
        return DeviceListing(soundServer: true, devices: monitor.devices.compactMap(AudioDevice.init))
    }

    /// True when a pulsesink can open a connection (PulseAudio, or PipeWire's pulse server).
    static func soundServerAnswers() throws(GStreamerError) -> Bool {
        guard ElementFactory.isAvailable("pulsesink") else { return false }
        let probe = try ElementFactory.make("pulsesink")
        defer { _ = try? probe.setState(.null) }
        // READY opens the context; it fails at once when no server is there.
        return (try? probe.setState(.ready)) != nil
    }

    /// The ids of the devices in one direction.
    func ids(_ direction: AudioDevice.Direction) -> [String] {
        devices.filter { $0.direction == direction }.map(\.id)
    }
}
