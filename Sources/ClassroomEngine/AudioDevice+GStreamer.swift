import ClassroomAudio
import GStreamer

extension AudioDevice {
    /// The session's view of a device found by a GStreamer `DeviceMonitor`, as the session
    /// controller sees it; nil when it is neither an audio sink nor an audio source.
    ///
    /// For tools that list devices without running a controller (`classroom-player devices`).
    public init?(_ device: Device) {
        guard let audio = DeviceBridge.audioDevice(device) else { return nil }
        self = audio
    }
}
