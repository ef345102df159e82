import ClassroomAudio
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

    @Test("a measured echo path moves AEC1's compensation to 25 ms below it, and AEC3's only when AEC3 cannot find the path itself")
    func compensationPerCanceller() {
        func compensation(_ path: Int, from current: Int, on canceller: Platform.EchoCanceller?) -> Int {
            Int(AudioEngine.compensation(for: .milliseconds(path), current: .milliseconds(current), on: canceller).nanoseconds / 1_000_000)
        }
        // AEC1 (and no webrtcdsp at all): every path centred in its 5–50 ms window, as before #24.
        for canceller in [Platform.EchoCanceller.aec1, nil] {
            #expect(compensation(10, from: 0, on: canceller) == 0)
            #expect(compensation(50, from: 0, on: canceller) == 25)
            #expect(compensation(150, from: 0, on: canceller) == 125)
            #expect(compensation(100, from: 125, on: canceller) == 75)
        }
        // AEC3: a move costs it 2.5 s of echo, so paths its own search reaches (0–512 ms, less its
        // 52 ms filter and a margin) keep the compensation in force.
        #expect(compensation(50, from: 0, on: .aec3) == 0)
        #expect(compensation(450, from: 0, on: .aec3) == 0)
        #expect(compensation(500, from: 0, on: .aec3) == 475)
        #expect(compensation(300, from: 150, on: .aec3) == 150)
        // A path before the compensation (a device that over-reports latency) is beyond any search.
        #expect(compensation(100, from: 150, on: .aec3) == 75)
    }

    @Test("AEC3's voice profile cancels echo only where the mix can reach the microphone; AEC1's everywhere")
    func echoCancelWhereEchoCanCome() {
        let version = GStreamer.version
        let aec1 = Platform(version: version, echoCanceller: .aec1), aec3 = Platform(version: version, echoCanceller: .aec3)
        for reaches in [true, false] {
            #expect(VoiceProcessing(profile: .voice, mixReachesMicrophone: reaches, on: aec1) == .voice)
            let voice = VoiceProcessing(profile: .voice, mixReachesMicrophone: reaches, on: aec3)
            #expect(voice.echoCancel == reaches)
            var rest = voice
            rest.echoCancel = true
            #expect(rest == .voice)   // NS, the high-pass filter and the level control as everywhere
            #expect(VoiceProcessing(profile: .raw, mixReachesMicrophone: reaches, on: aec3) == .off)
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
