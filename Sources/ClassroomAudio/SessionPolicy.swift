/// The rules every direct configuration request passes through (DESIGN §4, "policy").
///
/// While RTC is live, a request that would silence or move RTC audio is corrected rather than
/// refused, so modules written without leases keep working; the session reports each correction
/// as an event and a 1029 alarm naming the owner and call site.
public enum SessionPolicy {
    /// Corrects a validated request so that, while RTC is live, it cannot silence RTC.
    ///
    /// A record-only category would stop playback and becomes playAndRecord; soloAmbient, which
    /// cannot mix, becomes ambient. Then every RTC policy option (mixWithOthers, defaultToSpeaker,
    /// allowBluetooth) that the category accepts is added. Without RTC the request is returned
    /// unchanged.
    public static func corrected(_ request: AudioConfiguration, rtcIsLive: Bool) -> AudioConfiguration {
        guard rtcIsLive else { return request }
        let category: Category
        switch request.category {
        case .record: category = .playAndRecord
        case .soloAmbient: category = .ambient
        case .ambient, .playback, .playAndRecord, .multiRoute: category = request.category
        }
        let mode = request.mode.compatibleCategories.contains(category) ? request.mode : .default
        let legal = category.allowedOptions
        let options = request.options.intersection(legal).union(CategoryOptions.rtcPolicy.intersection(legal))
        return AudioConfiguration(normalizing: category, mode: mode, options: options)
    }

    /// What a correction changed, in words: "category record → playAndRecord; added mixWithOthers".
    public static func summary(from requested: AudioConfiguration, to corrected: AudioConfiguration) -> String {
        var parts: [String] = []
        if requested.category != corrected.category {
            parts.append("category \(requested.category) → \(corrected.category)")
        }
        if requested.mode != corrected.mode {
            parts.append("mode \(requested.mode) → \(corrected.mode)")
        }
        let added = corrected.options.subtracting(requested.options)
        if !added.isEmpty { parts.append("added \(added)") }
        let removed = requested.options.subtracting(corrected.options)
        if !removed.isEmpty { parts.append("removed \(removed)") }
        return parts.isEmpty ? "no change" : parts.joined(separator: "; ")
    }
}
