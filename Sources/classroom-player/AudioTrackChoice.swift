import GStreamer

/// `--audio-track` and the `track` verb: a track number from 0, or a language code in any of the
/// ISO 639 forms people see (GStreamer tags "zh"; ffprobe and mkvinfo show "zho"; some tools "chi").
enum AudioTrackChoice {
    /// The track `choice` names among tracks tagged `languages` (in order); nil when none does.
    static func index(_ choice: String, in languages: [String?]) -> Int? {
        if let number = Int(choice) { return languages.indices.contains(number) ? number : nil }
        return languages.firstIndex { tag in tag.map { forms($0).contains(choice.lowercased()) } ?? false }
    }

    /// Every code that names the language tagged `tag`, e.g. ["zh", "zho", "chi"]; the tag alone when GStreamer does not know it.
    static func forms(_ tag: String) -> [String] {
        let known = LanguageCode(tag)?.codes ?? []
        return known.contains(tag.lowercased()) ? known : [tag.lowercased()] + known
    }

    /// The tracks as people choose them: "0 (en, eng), 1 (zh, zho, chi)", or "none".
    static func listing(_ languages: [String?]) -> String {
        let tracks = languages.enumerated().map { "\($0.offset)\($0.element.map { " (\(forms($0).joined(separator: ", ")))" } ?? "")" }
        return tracks.isEmpty ? "none" : tracks.joined(separator: ", ")
    }
}
