import ClassroomAudio
import Testing

@Suite("Volumes and ducking")
struct VolumeAndDuckingTests {
    @Test("media volume may be 0; call volume never goes below its floor")
    func ranges() throws {
        let session = try makeSession()
        #expect(try session.setVolume(0, for: .media) == 0)
        #expect(try session.setVolume(0, for: .call) == 0.1)
        #expect(try session.setVolume(0.05, for: .call) == 0.1)
        #expect(try session.setVolume(0.7, for: .call) == 0.7)
        for bad: Float in [-0.01, 1.01, .nan, .infinity] {
            #expect(throws: AudioSessionError.self) { try session.setVolume(bad, for: .media) }
        }
        #expect(session.mediaVolume == 0 && session.callVolume == 0.7)
    }

    @Test("the call volume floor is configurable but never 0")
    func floorSetting() throws {
        var settings = SessionSettings()
        settings.callVolumeFloor = 0.25
        let session = try makeSession(settings)
        #expect(try session.setVolume(0, for: .call) == 0.25)
        for floor: Float in [0, -1, 1.5, .nan] {
            var bad = SessionSettings()
            bad.callVolumeFloor = floor
            #expect(throws: AudioSessionError.self) { try makeSession(bad) }
        }
    }

    @Test("the active channel follows the processing profile")
    func activeChannel() throws {
        let session = try makeSession()
        try session.setVolume(0.3, for: .media)
        try session.setVolume(0.8, for: .call)
        #expect(session.resolvedState.volume == ActiveVolume(channel: .media, value: 0.3))
        let events = EventRecorder(session)
        let call = try session.lease(.voiceCall, owner: "rtc")
        #expect(session.resolvedState.volume == ActiveVolume(channel: .call, value: 0.8))
        try session.release(call)
        let measuring = try session.lease(.measurement, owner: "mic-check")
        #expect(session.resolvedState.volume.channel == .media)
        try session.release(measuring)
        #expect(
            events.events.filter { if case .volumeChanged = $0 { true } else { false } }
                == [.volumeChanged(ActiveVolume(channel: .call, value: 0.8)), .volumeChanged(ActiveVolume(channel: .media, value: 0.3))])
    }

    @Test("volume keys change only the active channel and stay in range")
    func volumeKeys() throws {
        let session = try makeSession()
        try session.setVolume(0.5, for: .media)
        try session.setVolume(0.5, for: .call)
        #expect(try session.adjustActiveVolume(by: -0.2).value == 0.3)
        #expect(try session.adjustActiveVolume(by: -5) == ActiveVolume(channel: .media, value: 0))
        #expect(session.callVolume == 0.5)
        _ = try session.lease(.voiceCall, owner: "rtc")
        #expect(try session.adjustActiveVolume(by: -5) == ActiveVolume(channel: .call, value: 0.1))
        #expect(try session.adjustActiveVolume(by: 5) == ActiveVolume(channel: .call, value: 1))
        #expect(session.mediaVolume == 0)
        #expect(throws: AudioSessionError.self) { try session.adjustActiveVolume(by: .nan) }
    }

    @Test("ducking applies the factor once however many hold it")
    func duckOnce() throws {
        let session = try makeSession()
        let events = EventRecorder(session)
        let tokens = try (0..<5).map { try session.duck(owner: "prompt-\($0)") }
        #expect(session.resolvedState.ducking == DuckingState(factor: 0.1, ramp: .milliseconds(250)))
        let duckEvents = events.events.filter { if case .duckingChanged = $0 { true } else { false } }
        #expect(duckEvents == [.duckingChanged(DuckingState(factor: 0.1, ramp: .milliseconds(250)))])
        for token in tokens { try session.releaseDuck(token) }
        #expect(session.resolvedState.ducking == DuckingState(factor: 1, ramp: .milliseconds(500)))
    }

    @Test("every release order of four ducks restores exactly, and never touches the user volumes")
    func everyReleaseOrder() throws {
        for order in permutations(Array(0..<4)) {
            var settings = SessionSettings()
            settings.duckingFactor = 0.25
            settings.mediaVolume = 0.6
            settings.callVolume = 0.4
            let session = try makeSession(settings)
            let events = EventRecorder(session)
            let tokens = try (0..<4).map { try session.duck(owner: "holder-\($0)") }
            for (step, index) in order.enumerated() {
                try session.releaseDuck(tokens[index])
                let expected: Float = step == order.count - 1 ? 1 : 0.25
                #expect(session.resolvedState.ducking.factor == expected)
                #expect(session.mediaVolume == 0.6 && session.callVolume == 0.4)
            }
            let factors = events.events.compactMap { event -> Float? in
                if case .duckingChanged(let ducking) = event { return ducking.factor }
                return nil
            }
            #expect(factors == [0.25, 1])
        }
    }

    @Test("ramp durations are part of the resolved ducking state")
    func ramps() throws {
        var settings = SessionSettings()
        settings.duckRamp = .milliseconds(80)
        settings.unduckRamp = .milliseconds(900)
        let session = try makeSession(settings)
        let token = try session.duck(owner: "announcement")
        #expect(session.resolvedState.ducking.ramp == .milliseconds(80))
        try session.releaseDuck(token)
        #expect(session.resolvedState.ducking.ramp == .milliseconds(900))
        #expect(!session.resolvedState.ducking.isDucked)
    }

    @Test("out-of-range ducking settings are refused")
    func duckingSettings() {
        for factor: Float in [0, 1.5, -0.1, .nan] {
            var settings = SessionSettings()
            settings.duckingFactor = factor
            #expect(throws: AudioSessionError.self) { try makeSession(settings) }
        }
        var settings = SessionSettings()
        settings.duckRamp = .milliseconds(-1)
        #expect(throws: AudioSessionError.self) { try makeSession(settings) }
    }
}
