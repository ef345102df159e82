import ClassroomAudio
import Dispatch
import Foundation
import GStreamer

/// Devices coming and going, and the output lost and found again: the device watch, Bluetooth
/// profile switches, a lost device or sound server, and the recovery that brings the output back.
extension SessionController {
    // MARK: Devices

    func startDeviceWatch() throws(EngineError) {
        guard engine.output.isSoundServer else {
            session.addDevice(DeviceBridge.headlessOutput)
            if case .fixed = microphone { session.addDevice(DeviceBridge.headlessInput) }
            return
        }
        let monitor = try EngineError.wrap { () throws(GStreamerError) in try DeviceMonitor.audio() }
        try watch(monitor)
        if case .fixed = microphone { session.addDevice(DeviceBridge.headlessInput) }
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

    // MARK: Sound server loss and return

    /// The output failed. For a sound-server output that is the server gone (or refusing us):
    /// media services are lost (an interruption: lesson paused, uplink muted), the microphone and
    /// the device watch go with it, and `checkAlarms` tries to bring everything back.
    func outputLost(_ why: String) {
        guard state.withLock({ $0.outputLostAt == nil }) else { return }
        logger.error("output lost: \(why)")
        guard engine.output.isSoundServer else {
            session.mediaServicesWereLost()
            return
        }
        let monitor = state.withLock { state -> DeviceMonitor? in
            state.outputLostAt = DispatchTime.now().uptimeNanoseconds
            state.lostKind = .server
            defer { state.deviceMonitor = nil }
            return state.deviceMonitor
        }
        monitor?.stop()
        engine.disconnectMicrophone()
        session.mediaServicesWereLost()
    }

    /// The last output device went away (the server lives): the engine is suspended — pushes are
    /// refused, not queued into a dead stream — and an interruption runs until a device returns.
    func deviceLost(_ why: String) {
        guard state.withLock({ state -> Bool in
            guard state.outputLostAt == nil else { return false }
            state.outputLostAt = DispatchTime.now().uptimeNanoseconds
            state.lostKind = .device
            return true
        }) else { return }
        logger.error("output lost: \(why)")
        do { try engine.suspend() } catch { logger.warning("suspending the engine: \(error)") }
        session.beginInterruption(.deviceLost)
    }

    /// While the output is lost, every 250 ms: when a device monitor sees the server's sinks again,
    /// the engine restarts on it, the monitor becomes the device watch and media services are reset
    /// (the interruption ends; the lesson resumes; the microphone reopens if a lease records).
    func tryRecovery() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard let (lostAt, kind) = state.withLock({ state -> (UInt64, LostOutput)? in
            guard let lostAt = state.outputLostAt, now - state.lastRecoveryAttempt >= 250_000_000 else { return nil }
            state.lastRecoveryAttempt = now
            return (lostAt, state.lostKind)
        }) else { return }
        if kind == .device {
            // The device watch still runs: the session knows when a device is back.
            guard session.currentRoute.output != nil else { return }
            do { try engine.restart() } catch {
                logger.warning("an output device is back, but the output does not play yet: \(error)")
                return
            }
            recovered(lostAt: lostAt)
            _ = session.endInterruption(.deviceLost, shouldResume: true)
            return
        }
        guard let monitor = try? DeviceMonitor.audio(), (try? monitor.start()) != nil else { return }
        let serverIsBack = monitor.devices.contains { $0.isAudioSink && DeviceBridge.audioDevice($0) != nil }
        monitor.stop()
        guard serverIsBack else { return }
        do {
            try engine.restart()
            try watch(monitor)
        } catch {
            logger.warning("the sound server answers again, but the output does not play yet: \(error)")
            return
        }
        recovered(lostAt: lostAt)
        session.mediaServicesWereReset()
    }

    /// The output plays again: the loss is over.
    func recovered(lostAt: UInt64) {
        state.withLock { $0.outputLostAt = nil }
        // The restarted stream went to the server's default sink, which need not be the route's
        // (it stays the Dummy Output after the last real sink came back).
        if engine.output.isSoundServer { move(to: session.resolvedState.route.output?.deviceID, attempt: 0) }
        let outage = Double(DispatchTime.now().uptimeNanoseconds - lostAt) / 1e9
        logger.notice("output recovered", metadata: ["after": "\(String(format: "%.2f s", outage))"])
    }
}
