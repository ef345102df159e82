import GStreamer
import Testing

@Suite("Language codes (gsttag's ISO 639 tables)")
struct LanguageCodeTests {
    init() throws { try Support.start() }

    @Test("a language is known by its 639-1, 639-2/T and 639-2/B codes, in any case; an unknown code is nil", arguments: ["zh", "zho", "chi", "ZHO"])
    func chinese(code: String) throws {
        let language = try #require(LanguageCode(code))
        #expect(language.codes == ["zh", "zho", "chi"])
        #expect(language.matches("Zh") && language.matches("chi") && !language.matches("en"))
    }

    @Test("languages whose 639-2 codes are one, or differ")
    func others() {
        #expect(LanguageCode("en")?.codes == ["en", "eng"])
        #expect(LanguageCode("fre")?.codes == ["fr", "fra", "fre"])
        #expect(LanguageCode("de")?.iso639_2B == "ger")
        #expect(LanguageCode("xx") == nil)
    }
}
