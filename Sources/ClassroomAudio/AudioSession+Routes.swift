extension AudioSession {
    /// Reports a connected device (DEVICE_ADDED); the last connected allowed device wins the route.
    ///
    /// A device already known by its id is updated in place, since the device monitor reports
    /// initial devices twice. A new device that can carry a route ends the output override; one
    /// that cannot (a sink monitor) or a repeated report does not.
    public func addDevice(_ device: AudioDevice) {
        mutate { state, _, mutation in
            if let index = state.devices.firstIndex(where: { $0.id == device.id }) {
                let changed = state.devices[index] != device
                state.devices[index] = device
                if changed {
                    mutation.routeReason = .routeConfigurationChange
                    mutation.endsOverride = state.settings.classifier.classify(device) != nil
                }
            } else {
                state.devices.append(device)
                mutation.routeReason = .newDeviceAvailable
                mutation.endsOverride = state.settings.classifier.classify(device) != nil
            }
        }
        logger.debug("device added", metadata: ["device": "\(device)"])
    }

    /// Reports a disconnected device (DEVICE_REMOVED).
    ///
    /// When it was the personal output the lesson played through (headphones, a headset,
    /// Bluetooth), the session asks the lesson to pause, unless the settings say otherwise.
    ///
    /// - Returns: false when the device was not known.
    @discardableResult
    public func removeDevice(id: String) -> Bool {
        let removed = mutate { state, before, mutation in
            guard let index = state.devices.firstIndex(where: { $0.id == id }) else { return false }
            let gone = state.devices.remove(at: index)
            mutation.routeReason = .oldDeviceUnavailable
            if state.chosenDevice(for: gone.direction) == id {
                // The only end of a user's choice: its device is gone.
                state.setChosenDevice(nil, for: gone.direction)
                mutation.leading.append(.deviceChoiceEnded(deviceID: id, direction: gone.direction))
            }
            mutation.endsOverride = state.settings.classifier.classify(gone) != nil
            if state.settings.pausesLessonWhenHeadphonesUnplugged, let output = before.route.output,
                output.deviceID == id, output.port.isPersonal
            {
                mutation.trailing.append(.lessonPauseRequested(.headphonesUnplugged(output.port)))
            }
            return true
        }
        logger.debug("device removed", metadata: ["device": "\(id)", "known": "\(removed)"])
        return removed
    }

    /// Reports a changed device (DEVICE_CHANGED: default flag, profile or port), keeping its place
    /// in the connection order.
    ///
    /// - Parameters:
    ///   - device: the device as it is now.
    ///   - oldID: the id the device had before, when the change renamed it (a Bluetooth
    ///     profile switch renames the PulseAudio sink); an unknown device is added.
    public func updateDevice(_ device: AudioDevice, replacing oldID: String? = nil) {
        mutate { state, _, mutation in
            let key = oldID ?? device.id
            state.devices.removeAll { $0.id == device.id && $0.id != key }
            if let index = state.devices.firstIndex(where: { $0.id == key }) {
                let classifier = state.settings.classifier
                // Only a change in what the device can carry (port, profile, id) is a route change.
                let changed = classifier.classify(state.devices[index]) != classifier.classify(device) || key != device.id
                state.devices[index] = device
                mutation.routeReason = .routeConfigurationChange
                mutation.endsOverride = changed
                // A renamed device (a Bluetooth profile switch) is the same device: the user's choice follows it.
                if state.chosenDevice(for: device.direction) == key { state.setChosenDevice(device.id, for: device.direction) }
            } else {
                state.devices.append(device)
                mutation.routeReason = .newDeviceAvailable
                mutation.endsOverride = state.settings.classifier.classify(device) != nil
            }
        }
        logger.debug("device changed", metadata: ["device": "\(device)"])
    }

    /// Overrides the output until the next route change: `.speaker` plays through the built-in
    /// speaker and records from the built-in microphone; `.none` removes the override.
    ///
    /// - Throws: ``AudioSessionError/incompatibleCategory(reason:)`` when the category does not play;
    ///   ``AudioSessionError/resourceNotAvailable(reason:)`` when no built-in speaker is connected.
    public func overrideOutputPort(_ override: PortOverride) throws(AudioSessionError) {
        try mutate { state, before, mutation throws(AudioSessionError) in
            if override == .speaker {
                let category = before.configuration.category
                guard category.producesOutput else {
                    throw .incompatibleCategory(reason: "the speaker override needs a category that plays; \(category) only records")
                }
                let classifier = state.settings.classifier
                guard state.devices.contains(where: { $0.direction == .output && classifier.classify($0)?.port == .builtInSpeaker })
                else {
                    throw .resourceNotAvailable(reason: "no built-in speaker is connected to override the output to")
                }
            }
            state.portOverride = override
            mutation.routeReason = .override
        }
        logger.debug("output override", metadata: ["override": "\(override)"])
    }

    /// Chooses the device the user named for its direction (`--output NAME`, `--mic NAME`; iOS's
    /// `setPreferredInput`, and `overrideOutputAudioPort` for a named device): the route takes it
    /// while it is connected, whatever else comes and goes, and the choice ends only when that
    /// device goes away (``SessionEvent/deviceChoiceEnded(deviceID:direction:)``, then the route's
    /// own choice). Nil removes the choice for `direction`.
    ///
    /// - Throws: ``AudioSessionError/resourceNotAvailable(reason:)`` when no device of that
    ///   direction with this id is connected.
    public func chooseDevice(_ id: String?, for direction: AudioDevice.Direction) throws(AudioSessionError) {
        try mutate { state, _, mutation throws(AudioSessionError) in
            if let id {
                guard state.devices.contains(where: { $0.id == id && $0.direction == direction }) else {
                    let known = state.devices.filter { $0.direction == direction }.map(\.id).joined(separator: ", ")
                    throw .resourceNotAvailable(reason: "no \(direction) device '\(id)' is connected (connected: \(known.isEmpty ? "none" : known))")
                }
            }
            state.setChosenDevice(id, for: direction)
            mutation.routeReason = .override
        }
        logger.debug("device chosen", metadata: ["direction": "\(direction)", "device": "\(id ?? "none")"])
    }

    /// Reports that the kiosk woke from sleep: the override ends and the route is chosen afresh.
    public func systemDidWake() {
        mutate { _, _, mutation in
            mutation.endsOverride = true
            mutation.routeReason = .wakeFromSleep
        }
    }

    /// The hardware characteristics of the current route, from the hardware backend.
    public var hardwareCharacteristics: HardwareCharacteristics {
        let state = state
        let route = SessionResolver.resolve(state).route
        return hardware.characteristics(for: route, preferences: state.preferences)
    }

    /// Sets the preferred sample rate in Hz, or nil for the device's own; the hardware decides.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` outside 8 000…384 000 Hz.
    public func setPreferredSampleRate(_ sampleRate: Double?) throws(AudioSessionError) {
        if let sampleRate {
            guard sampleRate.isFinite, (8_000...384_000).contains(sampleRate) else {
                throw .badParam(reason: "preferred sample rate \(sampleRate) Hz is outside 8000…384000 Hz")
            }
        }
        mutate { state, _, _ in state.preferences.sampleRate = sampleRate }
    }

    /// Sets the preferred I/O buffer duration, or nil for the backend's default; the hardware decides.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` unless above zero and at most one second.
    public func setPreferredIOBufferDuration(_ duration: Duration?) throws(AudioSessionError) {
        if let duration {
            guard duration > .zero, duration <= .seconds(1) else {
                throw .badParam(reason: "preferred I/O buffer duration \(duration) must be above 0 and at most 1 second")
            }
        }
        mutate { state, _, _ in state.preferences.ioBufferDuration = duration }
    }
}
