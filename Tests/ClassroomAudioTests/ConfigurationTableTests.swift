import ClassroomAudio
import Testing

/// The tables of DESIGN §4, written out independently of the library.
private enum Table {
    struct Traits: Equatable {
        let input: Bool, output: Bool, mixable: Bool, muted: Bool
    }

    static let categories: [Category: Traits] = [
        .ambient: Traits(input: false, output: true, mixable: true, muted: true),
        .soloAmbient: Traits(input: false, output: true, mixable: false, muted: true),
        .playback: Traits(input: false, output: true, mixable: false, muted: false),
        .record: Traits(input: true, output: false, mixable: false, muted: false),
        .playAndRecord: Traits(input: true, output: true, mixable: false, muted: false),
        .multiRoute: Traits(input: true, output: true, mixable: false, muted: false),
    ]

    static let modes: [Mode: Set<Category>] = [
        .default: Set(Category.allCases),
        .voiceChat: [.playAndRecord], .videoChat: [.playAndRecord], .gameChat: [.playAndRecord],
        .videoRecording: [.playAndRecord, .record],
        .measurement: [.playAndRecord, .record, .playback],
        .moviePlayback: [.playback],
        .spokenAudio: [.playback, .playAndRecord], .voicePrompt: [.playback, .playAndRecord],
    ]

    static let options: [(option: CategoryOptions, name: String, categories: Set<Category>)] = [
        (.mixWithOthers, "mixWithOthers", [.playAndRecord, .playback, .multiRoute, .ambient]),
        (.duckOthers, "duckOthers", [.playAndRecord, .playback, .multiRoute]),
        (
            .interruptSpokenAudioAndMixWithOthers, "interruptSpokenAudioAndMixWithOthers",
            [.playAndRecord, .playback, .multiRoute]
        ),
        (.allowBluetooth, "allowBluetooth", [.record, .playAndRecord]),
        (.allowBluetoothA2DP, "allowBluetoothA2DP", [.playAndRecord]),
        (.allowAirPlay, "allowAirPlay", [.playAndRecord]),
        (.defaultToSpeaker, "defaultToSpeaker", [.playAndRecord]),
        (.overrideMutedMicrophoneInterruption, "overrideMutedMicrophoneInterruption", [.record, .playAndRecord, .multiRoute]),
    ]

    static func implied(_ category: Category, _ mode: Mode, _ options: CategoryOptions) -> CategoryOptions {
        var all = options
        if category == .ambient { all.insert(.mixWithOthers) }
        if options.contains(.duckOthers) || options.contains(.interruptSpokenAudioAndMixWithOthers) {
            all.insert(.mixWithOthers)
        }
        if mode == .voiceChat { all.insert(.allowBluetooth) }
        if mode == .videoChat { all.formUnion([.allowBluetooth, .defaultToSpeaker]) }
        return all
    }
}

@Suite("Categories, modes and options")
struct ConfigurationTableTests {
    @Test("each category has the traits of the table", arguments: Category.allCases)
    func categoryTraits(category: Category) throws {
        let traits = try #require(Table.categories[category])
        #expect(category.acceptsInput == traits.input)
        #expect(category.producesOutput == traits.output)
        #expect(category.mixesWithOthersByDefault == traits.mixable)
        #expect(category.isSilencedByMuteSwitch == traits.muted)
        let configuration = try AudioConfiguration(category: category)
        #expect(configuration.mixesWithOthers == traits.mixable)
    }

    @Test("each mode is accepted by exactly the categories of the table", arguments: Mode.allCases)
    func modeCompatibility(mode: Mode) throws {
        let expected = try #require(Table.modes[mode])
        #expect(mode.compatibleCategories == expected)
        for category in Category.allCases {
            #expect(category.allowedModes.contains(mode) == expected.contains(category))
        }
    }

    @Test("every category × mode × option combination is accepted or refused as the tables say")
    func everyCombination() {
        var accepted = 0
        var refused = 0
        for category in Category.allCases {
            for mode in Mode.allCases {
                for bits in 0..<UInt32(256) {
                    let options = CategoryOptions(rawValue: bits)
                    let modeOK = Table.modes[mode]?.contains(category) ?? false
                    let illegal = Table.options.filter { options.contains($0.option) && !$0.categories.contains(category) }
                    do {
                        let configuration = try AudioConfiguration(category: category, mode: mode, options: options)
                        accepted += 1
                        #expect(modeOK && illegal.isEmpty, "\(category)/\(mode) [\(options)] was accepted")
                        #expect(configuration.category == category && configuration.mode == mode)
                        #expect(configuration.options == Table.implied(category, mode, options))
                    } catch .incompatibleCategory(let reason) {
                        refused += 1
                        #expect(!modeOK, "\(category)/\(mode) refused for its mode: \(reason)")
                        #expect(reason.contains("mode \(mode)") && reason.contains("category \(category)"))
                    } catch .badParam(let reason) {
                        refused += 1
                        #expect(modeOK && !illegal.isEmpty, "\(category)/\(mode) [\(options)] refused: \(reason)")
                        for option in illegal {
                            #expect(reason.contains(option.name), "\(reason) does not name \(option.name)")
                        }
                        for legal in Table.options where options.contains(legal.option) && legal.categories.contains(category) {
                            #expect(!reason.contains("\(legal.name) needs"), "\(reason) blames the legal \(legal.name)")
                        }
                        #expect(reason.contains("category \(category)"))
                    } catch {
                        Issue.record("unexpected error \(error)")
                    }
                }
            }
        }
        #expect(accepted + refused == Category.allCases.count * Mode.allCases.count * 256)
        #expect(accepted > 0 && refused > 0)
    }

    @Test("unknown option bits are a bad parameter")
    func unknownBits() {
        #expect(throws: AudioSessionError.self) {
            try AudioConfiguration(category: .playback, options: CategoryOptions(rawValue: 1 << 12))
        }
    }

    @Test("chat modes select the voice profile, measurement raw, everything else media", arguments: Mode.allCases)
    func profiles(mode: Mode) {
        let expected: ProcessingProfile =
            switch mode {
            case .voiceChat, .videoChat, .gameChat: .voice
            case .measurement: .raw
            default: .media
            }
        #expect(mode.processingProfile == expected)
        #expect(mode.processingProfile.volumeChannel == (expected == .voice ? .call : .media))
    }

    @Test("the output stream's media.role follows the configuration")
    func mediaRoles() throws {
        #expect(try AudioConfiguration(category: .playback).mediaRole == "video")
        #expect(try AudioConfiguration(category: .playback, mode: .moviePlayback).mediaRole == "video")
        #expect(try AudioConfiguration(category: .ambient).mediaRole == "event")
        #expect(try AudioConfiguration(category: .soloAmbient).mediaRole == "music")
        for chat in [Mode.voiceChat, .videoChat, .gameChat] {
            #expect(try AudioConfiguration(category: .playAndRecord, mode: chat).mediaRole == "phone")
        }
        #expect(try AudioConfiguration(category: .playAndRecord, mode: .measurement).mediaRole == "test")
        #expect(try AudioConfiguration(category: .playAndRecord).mediaRole == "production")
        #expect(try AudioConfiguration(category: .record).mediaRole == "production")
    }

    @Test("error messages read as sentences that name the kind of failure")
    func errorDescriptions() {
        let error = AudioSessionError.incompatibleCategory(reason: "mode voiceChat is not available in category playback")
        #expect(error.description == "Not allowed in this audio category: mode voiceChat is not available in category playback")
        #expect(AudioSessionError.isBusy(reason: "x").description.hasPrefix("Audio session busy"))
        #expect(AudioSessionError.mediaServicesFailed(reason: "x").reason == "x")
    }

    @Test("option sets describe themselves by name")
    func optionNames() {
        #expect(CategoryOptions([.mixWithOthers, .defaultToSpeaker]).description == "mixWithOthers, defaultToSpeaker")
        #expect(CategoryOptions().description == "none")
        #expect(CategoryOptions.members.count == Table.options.count)
        for entry in Table.options {
            #expect(entry.option.description == entry.name)
            #expect(entry.option.legalCategories == entry.categories)
        }
    }
}
