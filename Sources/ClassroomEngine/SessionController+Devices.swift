import ClassroomAudio
import Dispatch
import Foundation
import GStreamer

/// Devices coming and going: the device watch and Bluetooth profile switches.
extension SessionController {
    // MARK: Devices

    func startDeviceWatch() throws(EngineError) {
        guard engine.output.isSoundServer else {
            session.addDevice(DeviceBridge.headlessOutput)
            if microphone != .route { session.addDevice(DeviceBridge.headlessInput) }
            return
        }
        let monitor = try EngineError.wrap { () throws(GStreamerError) in try DeviceMonitor.audio() }
        try watch(monitor)
        if case .fixed = microphone { session.addDevice(DeviceBridge.headlessInput) }
    }

    /// The devices the user named (a sound-server output device, a chosen microphone) become the
    /// session's sticky choices, which hold until those devices go away.
    func chooseNamedDevices() throws(EngineError) {
        guard engine.output.isSoundServer else { return }
        do {
            if case .soundServer(let device?) = engine.output { try session.chooseDevice(device, for: .output) }
            if case .chosen(let source) = microphone { try session.chooseDevice(source, for: .input) }
        } catch {
            throw .deviceNotConnected(error.reason)
        }
    }

    /// Feeds `monitor`'s devices into the session (those present now and every change to come)
    /// and starts it. Devices the session knows that the monitor does not are removed: after a
    /// server restart only what came back is there.
    func watch(_ monitor: DeviceMonitor) throws(EngineError) {
        let subscription = monitor.bus.subscribe { [weak self] message in
            guard let self else { return }
            switch message.view {
            case .deviceAdded(let device):
                guard let audio = DeviceBridge.audioDevice(device) else { return }
                self.state.withLock { $0.deviceIDs[device.displayName] = audio.id }
                self.queue.async { self.deviceArrived(audio) }
            case .deviceRemoved(let device):
                if let audio = DeviceBridge.audioDevice(device) {
                    self.queue.async { self.deviceDeparted(audio) }
                } else if let id = self.state.withLock({ $0.deviceIDs[device.displayName] }) {
                    self.queue.async { _ = self.session.removeDevice(id: id) }
                }
            case .deviceChanged(let device, _):
                guard let audio = DeviceBridge.audioDevice(device) else { return }
                self.queue.async { self.session.updateDevice(audio) }
            default:
                break
            }
        }
        do {
            try EngineError.wrap { () throws(GStreamerError) in try monitor.start() }
        } catch {
            subscription.cancel()
            throw error
        }
        // Devices present at start also arrive as device-added; the session de-duplicates by id.
        var present: Set<String> = [DeviceBridge.headlessInput.id]
        for device in monitor.devices {
            if let audio = DeviceBridge.audioDevice(device) {
                state.withLock { $0.deviceIDs[device.displayName] = audio.id }
                session.addDevice(audio)
                present.insert(audio.id)
            }
        }
        for gone in session.state.devices.map(\.id) where !present.contains(gone) { _ = session.removeDevice(id: gone) }
        state.withLock { $0.deviceMonitor = monitor; $0.tokens.append(subscription) }
    }

    /// How long a Bluetooth device that went away may take to come back under another profile.
    /// PulseAudio's bluetooth policy and WirePlumber switch a headset from A2DP to hands-free
    /// when a phone-role recording opens (our microphone), by removing one sink and adding another.
    static let profileSwitchGrace: DispatchTimeInterval = .milliseconds(1500)

    /// The Bluetooth headset a device belongs to, with its direction; nil for other devices.
    func bluetoothKey(_ device: AudioDevice) -> String? {
        guard let classification = session.state.settings.classifier.classify(device),
              [.bluetoothA2DP, .bluetoothHFP].contains(classification.port) else { return nil }
        return "\(classification.physicalID)/\(device.direction)"
    }

    func deviceArrived(_ device: AudioDevice) {
        if let key = bluetoothKey(device), let departed = state.withLock({ $0.departedBluetooth.removeValue(forKey: key) }) {
            // The same headset under another profile: a change of the device, not an unplug.
            session.updateDevice(device, replacing: departed)
        } else {
            session.addDevice(device)
        }
    }

    func deviceDeparted(_ device: AudioDevice) {
        guard let key = bluetoothKey(device) else {
            _ = session.removeDevice(id: device.id)
            return
        }
        state.withLock { $0.departedBluetooth[key] = device.id }
        queue.asyncAfter(deadline: .now() + Self.profileSwitchGrace) { [weak self] in
            guard let self, self.state.withLock({ $0.departedBluetooth[key] == device.id ? $0.departedBluetooth.removeValue(forKey: key) : nil }) != nil
            else { return }
            _ = self.session.removeDevice(id: device.id)
        }
    }
}
