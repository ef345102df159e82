import ClassroomAudio
import Testing

/// The design model judges the session, so it is checked on its own: against the library's
/// validation over every request, and on cases DESIGN §4 spells out, where it must say no.
@Suite("Design model")
struct DesignModelTests {
    @Test("the library accepts exactly the requests the design's tables accept")
    func validationMatchesTheTables() {
        var checked = 0
        for category in Category.allCases {
            for mode in Mode.allCases {
                for bits in UInt32(0)..<256 {
                    let options = CategoryOptions(rawValue: bits)
                    let accepted = (try? AudioConfiguration(category: category, mode: mode, options: options)) != nil
                    #expect(accepted == DesignModel.accepts(category, mode, options), "\(category)/\(mode) \(options)")
                    checked += 1
                }
            }
        }
        #expect(checked == 6 * 9 * 256)
    }

    @Test("every configuration the library builds is legal and normalised by the tables")
    func builtConfigurationsAreLegal() {
        for configuration in allLegalConfigurations {
            #expect(DesignModel.illegality(of: configuration).isEmpty, "\(configuration)")
        }
    }

    @Test("configurations that break a rule are named as breaking it")
    func brokenRulesAreSeen() throws {
        let recordOnly = try AudioConfiguration(category: .record)
        #expect(DesignModel.unmet(.init([.record]), by: recordOnly).contains { $0.hasPrefix("rule 2") })
        let solo = AudioConfiguration.initial
        #expect(DesignModel.unmet(.init([.playback]), by: solo).contains { $0.hasPrefix("rule 3") })
        let plainCall = try AudioConfiguration(category: .playAndRecord, mode: .default)
        let broken = DesignModel.unmet(.init([.voiceCall]), by: plainCall)
        #expect(broken.contains { $0.contains("chat mode") } && broken.contains { $0.hasPrefix("rule 5") })
        let voice = try AudioConfiguration(category: .playAndRecord, mode: .voiceChat, options: .mixWithOthers)
        #expect(DesignModel.unmet(.init([.measurement]), by: voice).contains { $0.contains("raw") })
        // A voice call outranks measurement's raw audio.
        let call = try AudioConfiguration(category: .playAndRecord, mode: .voiceChat, options: [.mixWithOthers, .defaultToSpeaker])
        #expect(DesignModel.unmet(.init([.measurement, .voiceCall]), by: call).isEmpty)
    }

    @Test("routes as DESIGN §4 words them: last connected wins, the override, the receiver")
    func routesFromTheWords() throws {
        let solo = AudioConfiguration.initial
        let devices = [Devices.speaker, Devices.builtInMic, Devices.jackHeadphones]
        let lastWins = DesignModel.route(solo, recording: false, devices: devices, override: .none)
        #expect(lastWins.output?.deviceID == Devices.jackHeadphones.id && lastWins.input == nil)
        let call = try AudioConfiguration(category: .playAndRecord, mode: .voiceChat, options: [.mixWithOthers, .defaultToSpeaker])
        let overridden = DesignModel.route(call, recording: true, devices: devices, override: .speaker)
        #expect(overridden.output?.port == .builtInSpeaker && overridden.input?.port == .builtInMic)
        let earpiece = try AudioConfiguration(category: .playAndRecord)
        let receiver = DesignModel.route(earpiece, recording: true, devices: [Devices.speaker, Devices.receiver], override: .none)
        #expect(receiver.output?.port == .builtInReceiver)
        let speaker = DesignModel.route(call, recording: true, devices: [Devices.speaker, Devices.receiver], override: .none)
        #expect(speaker.output?.port == .builtInSpeaker)
        // Stereo Bluetooth while recording needs allowBluetoothA2DP; the hands-free profile takes over.
        let headset = [Devices.speaker, Devices.bluetoothHeadsetA2DP, Devices.bluetoothHeadsetHFP, Devices.bluetoothHeadsetMic]
        let handsFree = DesignModel.route(call, recording: true, devices: headset, override: .none)
        #expect(handsFree.output?.port == .bluetoothHFP && handsFree.input?.port == .bluetoothHFP)
        let music = DesignModel.route(solo, recording: false, devices: headset, override: .none)
        #expect(music.output?.port == .bluetoothA2DP)
    }
}
