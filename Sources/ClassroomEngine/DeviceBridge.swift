import ClassroomAudio
import GStreamer

/// Turns GStreamer devices into the session's `AudioDevice` values.
enum DeviceBridge {
    /// The session's view of `device`, or nil when it is neither an audio sink nor source.
    static func audioDevice(_ device: Device) -> AudioDevice? {
        let direction: AudioDevice.Direction
        if device.isAudioSink { direction = .output } else if device.isAudioSource { direction = .input } else { return nil }
        guard let id = device.serverName, !id.isEmpty else { return nil }
        var properties: [String: String] = [:]
        var isDefault = false
        if let structure = device.properties {
            for field in structure.fieldNames {
                if field == "is-default" { isDefault = structure.bool(field) ?? false; continue }
                if let text = structure.string(field) { properties[field] = text }
            }
        }
        return AudioDevice(id: id, name: device.displayName, direction: direction, properties: properties, isDefault: isDefault)
    }

    /// Stand-ins for a headless engine (WAV or discarded output, pushed or file microphone), so
    /// routes resolve to the built-in speaker and microphone.
    static let headlessOutput = AudioDevice(id: "headless-output", name: "Headless output", direction: .output,
                                            properties: ["device.form_factor": "internal", "device.class": "sound"])
    static let headlessInput = AudioDevice(id: "headless-input", name: "Headless microphone", direction: .input,
                                           properties: ["device.form_factor": "internal", "device.class": "sound"])
}
