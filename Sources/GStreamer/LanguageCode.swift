import CGStreamer

/// One language in the three ISO 639 forms people meet: 639-1 ("zh", what GStreamer tags
/// carry), 639-2/T ("zho", what ffprobe and mkvinfo show) and 639-2/B ("chi"). From
/// GStreamer's tag library, which knows the tables.
public struct LanguageCode: Sendable, Hashable {
    /// The two-letter ISO 639-1 code, when the language has one.
    public let iso639_1: String?
    /// The three-letter ISO 639-2/T (terminology) code.
    public let iso639_2T: String?
    /// The three-letter ISO 639-2/B (bibliographic) code; the same as /T for most languages.
    public let iso639_2B: String?

    /// The language `code` names in any of the three forms (case ignored); nil when GStreamer does
    /// not know it. Wraps `gst_tag_get_language_code_iso_639_1`, `_639_2T` and `_639_2B`.
    public init?(_ code: String) {
        let lower = code.lowercased()
        // Each returns a static string (transfer none) or NULL.
        func form(_ lookup: (UnsafePointer<gchar>) -> UnsafePointer<gchar>?) -> String? {
            lower.withCString { lookup($0) }.map { String(cString: $0) }
        }
        iso639_1 = form(gst_tag_get_language_code_iso_639_1)
        iso639_2T = form(gst_tag_get_language_code_iso_639_2T)
        iso639_2B = form(gst_tag_get_language_code_iso_639_2B)
        guard iso639_1 != nil || iso639_2T != nil || iso639_2B != nil else { return nil }
    }

    /// Every form, shortest first, each once: ["zh", "zho", "chi"], ["fr", "fra", "fre"], ["en", "eng"].
    public var codes: [String] {
        [iso639_1, iso639_2T, iso639_2B].compactMap { $0 }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Whether `code` names this language in one of its forms (case ignored).
    public func matches(_ code: String) -> Bool { codes.contains(code.lowercased()) }
}
