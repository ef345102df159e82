import Testing
@testable import ClassroomEngine
import GStreamer

/// The voice profile writes AEC1's knobs only where webrtcdsp acts on them (WORKAROUNDS §13, #24).
@Suite("Voice processing per platform")
struct VoiceProcessingPlatformTests {
    init() throws { try GStreamer.initialize() }

    @Test("AEC1 gets its suppression level; AEC3's webrtcdsp is left at what it had")
    func suppressionLevelOnlyOnAEC1() throws {
        let version = GStreamer.version
        var processing = VoiceProcessing.voice
        processing.echoSuppression = .low
        // An AEC3 build reads back "moderate" whatever is set (1.26.2), so AEC1's write is checked only where it acts.
        let cancellers: [Platform.EchoCanceller] = Platform.current.echoCanceller == .aec1 ? [.aec1, .aec3] : [.aec3]
        for canceller in cancellers {
            let dsp = try ElementFactory.make("webrtcdsp")
            try dsp.set("echo-suppression-level", PropertyValue.enumNick("high"))
            let before = try dsp.enumNick("echo-suppression-level")
            try processing.apply(to: dsp, on: Platform(version: version, echoCanceller: canceller))
            #expect(try dsp.enumNick("echo-suppression-level") == (canceller == .aec1 ? "low" : before))
            #expect(try dsp.enumNick("noise-suppression-level") == "high")
        }
    }

    @Test("the platform names the canceller webrtcdsp says it has")
    func platformMatchesTheElement() throws {
        let dsp = try ElementFactory.make("webrtcdsp")
        let deprecated = try dsp.isDeprecated("echo-suppression-level")
        #expect(Platform.current.echoCanceller == (deprecated ? .aec3 : .aec1))
        #expect(Platform.current.version == GStreamer.version)
        #expect(try !dsp.isDeprecated("noise-suppression-level"))
    }
}
