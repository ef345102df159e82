/// A category, a mode and options: what the session is configured for.
///
/// A configuration is always legal (its public initializer validates it) and always normalised:
/// options implied by the category, the mode or other options are present in ``options``, so two
/// configurations that behave the same compare equal.
public struct AudioConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// What the audio is used for.
    public let category: Category
    /// The refinement of the category.
    public let mode: Mode
    /// The options, including the implied ones.
    public let options: CategoryOptions

    /// The configuration of a fresh session: soloAmbient, default mode, no options.
    public static let initial = AudioConfiguration(normalizing: .soloAmbient, mode: .default, options: [])

    /// Validates a request against the tables of DESIGN §4 and adds the implied options.
    ///
    /// - Throws: ``AudioSessionError/incompatibleCategory(reason:)`` when the category does not
    ///   accept the mode; ``AudioSessionError/badParam(reason:)`` when an option is not legal with
    ///   the category or is unknown. The message names the offending mode or options.
    public init(category: Category, mode: Mode = .default, options: CategoryOptions = []) throws(AudioSessionError) {
        guard mode.compatibleCategories.contains(category) else {
            let accepted = Category.allCases.filter { mode.compatibleCategories.contains($0) }
            throw .incompatibleCategory(
                reason: "mode \(mode) is not available in category \(category); "
                    + "it needs \(accepted.map(\.rawValue).joined(separator: " or ")), "
                    + "and \(category) accepts modes \(category.allowedModes.map(\.rawValue).joined(separator: ", "))")
        }
        let unknown = options.subtracting(.all)
        guard unknown.isEmpty else {
            throw .badParam(reason: "unknown category option bits 0x\(String(unknown.rawValue, radix: 16))")
        }
        let illegal = options.subtracting(category.allowedOptions.union(category.impliedOptions))
        guard illegal.isEmpty else {
            let needs = illegal.elements.map { option in
                "\(option) needs \(Category.allCases.filter { option.legalCategories.contains($0) }.map(\.rawValue).joined(separator: " or "))"
            }
            throw .badParam(
                reason: "option\(illegal.elements.count == 1 ? "" : "s") \(illegal) not available in category \(category) "
                    + "(\(needs.joined(separator: "; ")))")
        }
        self.init(normalizing: category, mode: mode, options: options)
    }

    /// Builds a configuration the caller has already checked, adding implied options.
    init(normalizing category: Category, mode: Mode, options: CategoryOptions) {
        var all = options.union(category.impliedOptions).union(mode.impliedOptions)
        all.formUnion(all.impliedOptions)
        self.category = category
        self.mode = mode
        self.options = all
    }

    /// The signal processing the engine runs for this configuration.
    public var processingProfile: ProcessingProfile { mode.processingProfile }

    /// Whether this configuration mixes with other sound-server clients.
    public var mixesWithOthers: Bool {
        category.mixesWithOthersByDefault || options.contains(.mixWithOthers)
    }

    /// The `media.role` of the output stream, which the sound server's role policies look at.
    ///
    /// Chat modes are calls (`phone`), measurement is `test`, and otherwise the category decides:
    /// playback is `video`, ambient is `event`, soloAmbient is `music`, and the recording
    /// categories are `production`.
    public var mediaRole: String {
        if mode.isChat { return "phone" }
        if mode == .measurement { return "test" }
        switch category {
        case .playback: return "video"
        case .ambient: return "event"
        case .soloAmbient: return "music"
        case .record, .playAndRecord, .multiRoute: return "production"
        }
    }

    /// Whether this configuration complies with the RTC policy (DESIGN §4 rule 5).
    public var compliesWithRTCPolicy: Bool {
        category == .playAndRecord && options.isSuperset(of: .rtcPolicy)
    }

    /// "category/mode [options]", for logs.
    public var description: String {
        "\(category)/\(mode) [\(options)]"
    }
}
