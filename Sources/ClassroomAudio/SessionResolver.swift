/// The pure functions from session state to what the engine applies (DESIGN §4).
///
/// Everything here is deterministic and free of side effects, so tests can compare a session
/// against these functions applied to a model they keep themselves.
public enum SessionResolver {
    /// Categories that satisfy a play-only need as they stand (rule 3).
    public static let playingCategories: Set<Category> = [.playAndRecord, .playback, .ambient]

    /// Resolves a whole state.
    public static func resolve(_ state: SessionState) -> ResolvedState {
        let requirements = state.requirements
        let configuration = configuration(base: state.base, requirements: requirements)
        let recording = isRecording(configuration: configuration, base: state.base, requirements: requirements)
        let route = route(
            configuration: configuration, isRecording: recording, devices: state.devices,
            override: state.portOverride, classifier: state.settings.classifier,
            chosenOutput: state.chosenOutput, chosenInput: state.chosenInput)
        let channel = configuration.processingProfile.volumeChannel
        let ducking =
            state.ducks.isEmpty
            ? DuckingState(factor: 1, ramp: state.settings.unduckRamp)
            : DuckingState(factor: state.settings.duckingFactor, ramp: state.settings.duckRamp)
        let interruption = state.interruption
        return ResolvedState(
            configuration: configuration,
            isActive: state.activationCount > 0 && !interruption.isInterrupted && !interruption.awaitingReactivation,
            isRecording: recording,
            volume: ActiveVolume(channel: channel, value: state.volume(of: channel)),
            ducking: ducking,
            route: route,
            isInterrupted: interruption.isInterrupted,
            alarms: alarms(of: state))
    }

    /// The effective configuration for the base configuration and the live leases' needs, in
    /// acquisition order (rules 1–5).
    ///
    /// Starting from the base, each lease in turn keeps the configuration reached so far if it
    /// already satisfies everything needed up to that lease (rule 1: no reconfiguration), and
    /// otherwise builds one from the base that does. Releasing a lease re-runs this over the
    /// remaining leases, so the result never depends on release order (rule 4). While a voice
    /// call is live its voice processing outranks a measurement lease's need for raw audio.
    public static func configuration(base: AudioConfiguration, requirements: [AudioRequirement]) -> AudioConfiguration {
        var current = base
        var needs = Needs()
        for requirement in requirements {
            needs.add(requirement)
            if !satisfies(current, needs) {
                current = build(from: base, for: needs)
            }
        }
        return current
    }

    /// Whether a configuration satisfies every one of these needs together, policy included.
    public static func satisfies(_ configuration: AudioConfiguration, _ requirements: [AudioRequirement]) -> Bool {
        var needs = Needs()
        requirements.forEach { needs.add($0) }
        return satisfies(configuration, needs)
    }

    /// Whether the microphone should run: the category records and a lease or the base asks for it.
    public static func isRecording(
        configuration: AudioConfiguration, base: AudioConfiguration, requirements: [AudioRequirement]
    ) -> Bool {
        configuration.category.acceptsInput && (requirements.contains(where: \.needsInput) || base.category.acceptsInput)
    }

    /// The route for a configuration and the connected devices (in connection order).
    ///
    /// Output: the speaker override while it lasts; else the output the user named, while it is
    /// connected; else the last connected allowed external device (for playAndRecord, a headset
    /// first: it is the communication device); else the built-in receiver for playAndRecord
    /// without defaultToSpeaker, else the built-in speaker.
    /// Input: the built-in microphone under the override; else the input the user named, while it
    /// is connected; else the hands-free input of the Bluetooth output in use; else the last
    /// connected external input (a headset first for playAndRecord); else the built-in microphone.
    public static func route(
        configuration: AudioConfiguration, isRecording: Bool, devices: [AudioDevice], override: PortOverride,
        classifier: PortClassifier, chosenOutput: String? = nil, chosenInput: String? = nil
    ) -> AudioRoute {
        let classified = devices.compactMap { device in classifier.classify(device).map { (device, $0) } }
        let outputs = classified.compactMap { device, classification -> Candidate? in
            guard device.direction == .output,
                let port = outputPort(for: classification, configuration: configuration, isRecording: isRecording)
            else { return nil }
            return Candidate(device: device, classification: classification, port: port)
        }
        let inputs = classified.compactMap { device, classification -> Candidate? in
            guard device.direction == .input,
                classification.port != .bluetoothHFP || configuration.options.contains(.allowBluetooth)
            else { return nil }
            return Candidate(device: device, classification: classification, port: classification.port)
        }
        let named = { (id: String?, direction: AudioDevice.Direction) in
            chosen(id, direction: direction, devices: devices, configuration: configuration, isRecording: isRecording,
                   classifier: classifier)
        }
        let output =
            configuration.category.producesOutput
            ? chooseOutput(from: outputs, configuration: configuration, override: override, chosen: named(chosenOutput, .output))
            : nil
        let input =
            configuration.category.acceptsInput
            ? chooseInput(from: inputs, configuration: configuration, override: override, chosen: named(chosenInput, .input), output: output)
            : nil
        return AudioRoute(output: output?.routePort, input: input?.routePort)
    }

    /// The device the user named, while it is connected: the user's choice, so it is taken even
    /// where the route would not pick it. Its port is what the configuration makes of it, else its
    /// classified port, else the plain port of its direction (a sink monitor named as a microphone).
    private static func chosen(
        _ id: String?, direction: AudioDevice.Direction, devices: [AudioDevice], configuration: AudioConfiguration,
        isRecording: Bool, classifier: PortClassifier
    ) -> Candidate? {
        guard let id, let device = devices.first(where: { $0.id == id && $0.direction == direction }) else { return nil }
        let plain: Port = direction == .output ? .builtInSpeaker : .builtInMic
        let classification =
            classifier.classify(device)
            ?? DeviceClassification(port: plain, rule: "chosen by the user", isHeadset: false, supportsA2DP: false,
                                    supportsHFP: false, physicalID: device.id)
        let port =
            direction == .output
            ? outputPort(for: classification, configuration: configuration, isRecording: isRecording) ?? classification.port
            : classification.port
        return Candidate(device: device, classification: classification, port: port)
    }

    /// The port a device provides under a configuration, or nil when the configuration does not allow it.
    ///
    /// Bluetooth hands-free needs allowBluetooth and a recording category; a device that can do
    /// both profiles uses hands-free only while recording, and stereo otherwise. Stereo is for
    /// playback: while recording it needs allowBluetoothA2DP.
    public static func outputPort(
        for classification: DeviceClassification, configuration: AudioConfiguration, isRecording: Bool
    ) -> Port? {
        guard classification.port.isBluetooth else { return classification.port }
        let handsFreeAllowed = configuration.options.contains(.allowBluetooth) && configuration.category.acceptsInput
        let stereoAllowed = !isRecording || configuration.options.contains(.allowBluetoothA2DP)
        if classification.supportsHFP, handsFreeAllowed,
            isRecording || !classification.supportsA2DP || !stereoAllowed
        {
            return .bluetoothHFP
        }
        if classification.supportsA2DP, stereoAllowed {
            return .bluetoothA2DP
        }
        return nil
    }

    private struct Candidate {
        let device: AudioDevice
        let classification: DeviceClassification
        let port: Port

        var routePort: RoutePort { RoutePort(port: port, deviceID: device.id, name: device.name) }
    }

    private static func builtIn(_ port: Port, in candidates: [Candidate]) -> Candidate? {
        let matching = candidates.filter { $0.port == port }
        return matching.last(where: \.device.isDefault) ?? matching.last
    }

    private static func lastExternal(in candidates: [Candidate], configuration: AudioConfiguration) -> Candidate? {
        let externals = candidates.filter { !$0.port.isBuiltIn }
        if configuration.category == .playAndRecord, let headset = externals.last(where: \.classification.isHeadset) {
            return headset
        }
        return externals.last
    }

    private static func chooseOutput(
        from candidates: [Candidate], configuration: AudioConfiguration, override: PortOverride, chosen: Candidate?
    ) -> Candidate? {
        if override == .speaker, let speaker = builtIn(.builtInSpeaker, in: candidates) {
            return speaker
        }
        if let chosen { return chosen }
        if let external = lastExternal(in: candidates, configuration: configuration) {
            return external
        }
        if configuration.category == .playAndRecord, !configuration.options.contains(.defaultToSpeaker),
            let receiver = builtIn(.builtInReceiver, in: candidates)
        {
            return receiver
        }
        return builtIn(.builtInSpeaker, in: candidates) ?? builtIn(.builtInReceiver, in: candidates)
    }

    private static func chooseInput(
        from candidates: [Candidate], configuration: AudioConfiguration, override: PortOverride, chosen: Candidate?,
        output: Candidate?
    ) -> Candidate? {
        if override == .speaker, let microphone = builtIn(.builtInMic, in: candidates) {
            return microphone
        }
        if let chosen { return chosen }
        if let output, output.port == .bluetoothHFP,
            let handsFree = candidates.last(where: {
                $0.port == .bluetoothHFP && $0.classification.physicalID == output.classification.physicalID
            })
        {
            return handsFree
        }
        return lastExternal(in: candidates, configuration: configuration) ?? builtIn(.builtInMic, in: candidates)
    }

    /// The active alarms: those raised and not cleared, plus 1025 while RTC is live and interrupted.
    private static func alarms(of state: SessionState) -> [Alarm] {
        var alarms = state.raisedAlarms
        let owners = state.rtcOwners
        if let first = state.interruption.active.first, !owners.isEmpty {
            let owner = owners.joined(separator: ", ")
            let sources = state.interruption.active.map(\.source.rawValue).joined(separator: ", ")
            if !alarms.contains(where: { $0.code == .rtcAudioInterrupted && $0.owner == owner }) {
                alarms.append(
                    Alarm(
                        code: .rtcAudioInterrupted, owner: owner, callSite: first.callSite,
                        message: "RTC audio is not reaching the output: interrupted by \(sources)",
                        context: ["interruptions": sources]))
            }
        }
        guard alarms.count > 1 else { return alarms }
        let order = AlarmCode.allCases
        return alarms.sorted { lhs, rhs in
            let left = order.firstIndex(of: lhs.code) ?? 0
            let right = order.firstIndex(of: rhs.code) ?? 0
            return left != right ? left < right : lhs.owner < rhs.owner
        }
    }

    /// What a prefix of the leases needs, with RTC voice processing outranking measurement.
    struct Needs {
        var input = false
        var output = false
        var voice = false
        var measurement = false
        var rtc = false
        var primaryPlayback = false

        mutating func add(_ requirement: AudioRequirement) {
            switch requirement {
            case .playback: output = true; primaryPlayback = true
            case .effects: output = true
            case .record: input = true
            case .voiceCall: input = true; output = true; voice = true; rtc = true
            case .measurement: input = true; measurement = true
            case .rtcPlayback: output = true; rtc = true
            }
        }

        var raw: Bool { measurement && !voice }
    }

    static func satisfies(_ configuration: AudioConfiguration, _ needs: Needs) -> Bool {
        if needs.input, configuration.category != .playAndRecord { return false }
        if needs.output, !playingCategories.contains(configuration.category) { return false }
        if needs.voice, !configuration.mode.isChat { return false }
        if needs.raw, configuration.mode != .measurement { return false }
        if needs.rtc, !configuration.compliesWithRTCPolicy { return false }
        return true
    }

    /// A configuration satisfying the needs, keeping as much of the base as they allow.
    static func build(from base: AudioConfiguration, for needs: Needs) -> AudioConfiguration {
        let category: Category
        if needs.input || needs.rtc || base.category.acceptsInput {
            // Rule 2: recording resolves to playAndRecord; a recording base keeps recording while playing.
            category = .playAndRecord
        } else {
            category = needs.primaryPlayback ? .playback : .ambient
        }
        let mode: Mode
        if needs.voice {
            mode = base.mode.isChat ? base.mode : .voiceChat
        } else if needs.raw {
            mode = .measurement
        } else {
            mode = base.mode.compatibleCategories.contains(category) ? base.mode : .default
        }
        var options = base.options.intersection(category.allowedOptions)
        if category == .playAndRecord, base.category != .playAndRecord {
            // Turning the microphone on must not move playback to the receiver or off Bluetooth.
            options.formUnion([.defaultToSpeaker, .allowBluetooth])
        }
        if needs.rtc {
            options.formUnion(.rtcPolicy)
        }
        return AudioConfiguration(normalizing: category, mode: mode, options: options)
    }
}
