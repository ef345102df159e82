import ClassroomAudio

/// DESIGN §4 written out a second time, from the design's words and tables, for the property
/// tests: they judge the session by these rules, not by `SessionResolver`, so a resolver bug
/// cannot hide behind itself. Device classification is the classifier's (tested on its own).
enum DesignModel {
    // MARK: The tables

    static let inputCategories: Set<Category> = [.record, .playAndRecord, .multiRoute]
    static let outputCategories: Set<Category> = [.ambient, .soloAmbient, .playback, .playAndRecord, .multiRoute]
    /// Rule 3: what satisfies a play-only need as it stands.
    static let playingCategories: Set<Category> = [.playAndRecord, .playback, .ambient]
    static let chatModes: Set<Mode> = [.voiceChat, .videoChat, .gameChat]
    /// Rule 5.
    static let rtcPolicy: CategoryOptions = [.mixWithOthers, .defaultToSpeaker, .allowBluetooth]

    /// The categories a mode is accepted in.
    static func categories(accepting mode: Mode) -> Set<Category> {
        switch mode {
        case .default: Set(Category.allCases)
        case .voiceChat, .videoChat, .gameChat: [.playAndRecord]
        case .videoRecording: [.playAndRecord, .record]
        case .measurement: [.playAndRecord, .record, .playback]
        case .moviePlayback: [.playback]
        case .spokenAudio, .voicePrompt: [.playback, .playAndRecord]
        }
    }

    /// The options a category accepts, implied ones included.
    static func legalOptions(in category: Category) -> CategoryOptions {
        var legal: CategoryOptions = []
        if [.playAndRecord, .playback, .multiRoute].contains(category) {
            legal.formUnion([.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers])
        }
        if category == .ambient { legal.insert(.mixWithOthers) }
        if [.record, .playAndRecord].contains(category) { legal.insert(.allowBluetooth) }
        if category == .playAndRecord { legal.formUnion([.allowBluetoothA2DP, .allowAirPlay, .defaultToSpeaker]) }
        if inputCategories.contains(category) { legal.insert(.overrideMutedMicrophoneInterruption) }
        return legal
    }

    /// Whether the tables accept a request: the mode in the category, every option legal there
    /// (ambient's own mixWithOthers included).
    static func accepts(_ category: Category, _ mode: Mode, _ options: CategoryOptions) -> Bool {
        categories(accepting: mode).contains(category) && legalOptions(in: category).isSuperset(of: options)
    }

    /// What a category and mode set by themselves, and what options imply.
    static func impliedOptions(_ category: Category, _ mode: Mode, _ options: CategoryOptions) -> CategoryOptions {
        var implied: CategoryOptions = category == .ambient ? .mixWithOthers : []
        if mode == .voiceChat { implied.insert(.allowBluetooth) }
        if mode == .videoChat { implied.formUnion([.allowBluetooth, .defaultToSpeaker]) }
        if !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) { implied.insert(.mixWithOthers) }
        return implied
    }

    static func profile(of mode: Mode) -> ProcessingProfile {
        chatModes.contains(mode) ? .voice : mode == .measurement ? .raw : .media
    }

    static func mixesWithOthers(_ configuration: AudioConfiguration) -> Bool {
        configuration.category == .ambient || configuration.options.contains(.mixWithOthers)
    }

    // MARK: Configuration

    /// What a set of live leases needs, in the design's words.
    struct Needs: Equatable {
        var records = false
        var plays = false
        var voice = false
        var measurement = false
        var rtc = false

        init(_ requirements: [AudioRequirement]) {
            for requirement in requirements {
                switch requirement {
                case .playback, .effects: plays = true
                case .record: records = true
                case .voiceCall: records = true; plays = true; voice = true; rtc = true
                case .measurement: records = true; measurement = true
                case .rtcPlayback: plays = true; rtc = true
                }
            }
        }
    }

    /// The rules a configuration breaks for these needs (empty: it satisfies them).
    static func unmet(_ needs: Needs, by configuration: AudioConfiguration) -> [String] {
        var broken: [String] = []
        if needs.records, configuration.category != .playAndRecord { broken.append("rule 2: recording needs playAndRecord") }
        if needs.plays, !playingCategories.contains(configuration.category) { broken.append("rule 3: playing needs a playing category") }
        if needs.voice, profile(of: configuration.mode) != .voice { broken.append("a voice call needs a chat mode (voice profile)") }
        if needs.measurement, !needs.voice, profile(of: configuration.mode) != .raw { broken.append("measurement needs the raw profile") }
        if needs.rtc, !(configuration.category == .playAndRecord && configuration.options.isSuperset(of: rtcPolicy)) {
            broken.append("rule 5: live RTC needs playAndRecord with mixWithOthers, defaultToSpeaker, allowBluetooth")
        }
        return broken
    }

    /// What makes a configuration illegal by the tables (empty: legal and normalised).
    static func illegality(of configuration: AudioConfiguration) -> [String] {
        var broken: [String] = []
        let (category, mode, options) = (configuration.category, configuration.mode, configuration.options)
        if !categories(accepting: mode).contains(category) { broken.append("mode \(mode) is not accepted in \(category)") }
        let implied = impliedOptions(category, mode, options)
        if !options.isSuperset(of: implied) { broken.append("implied options \(implied) missing") }
        let extra = options.subtracting(legalOptions(in: category)).subtracting(implied)
        if !extra.isEmpty { broken.append("options \(extra) not legal in \(category)") }
        return broken
    }

    /// A direct request as the policy must leave it: untouched without RTC; with RTC, never
    /// record-only, never unmixable, and with every policy option the category accepts.
    static func policyCorrected(_ request: AudioConfiguration, rtcIsLive: Bool) -> (category: Category, mode: Mode, options: CategoryOptions) {
        guard rtcIsLive else { return (request.category, request.mode, request.options) }
        let category: Category =
            switch request.category {
            case .record: .playAndRecord
            case .soloAmbient: .ambient
            default: request.category
            }
        let mode = categories(accepting: request.mode).contains(category) ? request.mode : .default
        let legal = legalOptions(in: category)
        var options = request.options.intersection(legal).union(rtcPolicy.intersection(legal))
        options.formUnion(impliedOptions(category, mode, options))
        return (category, mode, options)
    }

    /// Whether the microphone runs: the category takes input and a lease, or the app itself, records.
    static func isRecording(_ configuration: AudioConfiguration, base: AudioConfiguration, requirements: [AudioRequirement]) -> Bool {
        inputCategories.contains(configuration.category)
            && (Needs(requirements).records || inputCategories.contains(base.category))
    }

    // MARK: Routes

    private struct Candidate {
        let device: AudioDevice
        let classification: DeviceClassification
        let port: Port

        var routePort: RoutePort { RoutePort(port: port, deviceID: device.id, name: device.name) }
        var isBuiltIn: Bool { [.builtInSpeaker, .builtInReceiver, .builtInMic].contains(port) }
    }

    /// The port a Bluetooth device gives: hands-free needs allowBluetooth in a recording category
    /// and is preferred while recording; stereo needs no recording, or allowBluetoothA2DP.
    static func bluetoothPort(_ classification: DeviceClassification, _ configuration: AudioConfiguration, recording: Bool) -> Port? {
        let handsFree = classification.supportsHFP && configuration.options.contains(.allowBluetooth)
            && inputCategories.contains(configuration.category)
        let stereo = classification.supportsA2DP && (!recording || configuration.options.contains(.allowBluetoothA2DP))
        if handsFree, recording { return .bluetoothHFP }
        if stereo { return .bluetoothA2DP }
        return handsFree ? .bluetoothHFP : nil
    }

    /// The route the design gives: the speaker override while it lasts; else the last connected
    /// allowed external device (a headset first for playAndRecord, the communication device);
    /// else built-in: the receiver for playAndRecord without defaultToSpeaker, else the speaker.
    /// Input follows: the built-in mic under the override, the hands-free input of a hands-free
    /// output, else the last external input (headset first), else the built-in mic.
    static func route(_ configuration: AudioConfiguration, recording: Bool, devices: [AudioDevice], override: PortOverride) -> AudioRoute {
        var outputs: [Candidate] = []
        var inputs: [Candidate] = []
        for device in devices {
            guard let classification = PortClassifier.standard.classify(device) else { continue }
            let isBluetooth = classification.port == .bluetoothHFP || classification.port == .bluetoothA2DP
            if device.direction == .output {
                let port = isBluetooth ? bluetoothPort(classification, configuration, recording: recording) : classification.port
                if let port { outputs.append(Candidate(device: device, classification: classification, port: port)) }
            } else if classification.port != .bluetoothHFP || configuration.options.contains(.allowBluetooth) {
                inputs.append(Candidate(device: device, classification: classification, port: classification.port))
            }
        }
        let playAndRecord = configuration.category == .playAndRecord
        func builtIn(_ port: Port, _ candidates: [Candidate]) -> Candidate? {
            let matching = candidates.filter { $0.port == port }
            return matching.last { $0.device.isDefault } ?? matching.last
        }
        func external(_ candidates: [Candidate]) -> Candidate? {
            let externals = candidates.filter { !$0.isBuiltIn }
            return (playAndRecord ? externals.last { $0.classification.isHeadset } : nil) ?? externals.last
        }
        var output: Candidate?
        if outputCategories.contains(configuration.category) {
            if override == .speaker, let speaker = builtIn(.builtInSpeaker, outputs) {
                output = speaker
            } else if let chosen = external(outputs) {
                output = chosen
            } else if playAndRecord, !configuration.options.contains(.defaultToSpeaker), let receiver = builtIn(.builtInReceiver, outputs) {
                output = receiver
            } else {
                output = builtIn(.builtInSpeaker, outputs) ?? builtIn(.builtInReceiver, outputs)
            }
        }
        var input: Candidate?
        if inputCategories.contains(configuration.category) {
            if override == .speaker, let microphone = builtIn(.builtInMic, inputs) {
                input = microphone
            } else if let output, output.port == .bluetoothHFP,
                let handsFree = inputs.last(where: { $0.port == .bluetoothHFP && $0.classification.physicalID == output.classification.physicalID })
            {
                input = handsFree
            } else {
                input = external(inputs) ?? builtIn(.builtInMic, inputs)
            }
        }
        return AudioRoute(output: output?.routePort, input: input?.routePort)
    }
}
