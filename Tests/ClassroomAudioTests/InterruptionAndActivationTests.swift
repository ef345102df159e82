import ClassroomAudio
import Testing

@Suite("Activation, interruptions and alarms")
struct InterruptionAndActivationTests {
    @Test("activations are counted and the last deactivation makes the session inactive")
    func counting() throws {
        let session = try makeSession()
        let events = EventRecorder(session)
        try session.setActive(true)
        try session.setActive(true)
        try session.setActive(false)
        #expect(session.resolvedState.isActive)
        try session.setActive(false)
        #expect(!session.resolvedState.isActive)
        try session.setActive(false)
        #expect(session.state.activationCount == 0)
        #expect(events.events == [.activationChanged(isActive: true), .activationChanged(isActive: false)])
    }

    @Test("deactivating while I/O runs is isBusy unless asked to stop it")
    func busy() throws {
        let hardware = SimulatedAudioHardware(isIORunning: true)
        let session = try makeSession(hardware: hardware)
        try session.setActive(true)
        #expect {
            try session.setActive(false)
        } throws: { error in
            if case .isBusy = error as? AudioSessionError { return true }
            return false
        }
        #expect(session.resolvedState.isActive)
        try session.setActive(false, stopRunningIO: true)
        #expect(!session.resolvedState.isActive)
        try session.setActive(true)
        hardware.isIORunning = false
        try session.setActive(false)
        #expect(!session.resolvedState.isActive)
    }

    @Test("an interruption makes the session inactive, pauses the lesson, and resumes when allowed")
    func beganEndedResume() throws {
        let session = try makeSession()
        try session.setActive(true)
        let events = EventRecorder(session)
        session.beginInterruption(.soundServerCorked)
        #expect(session.resolvedState.isInterrupted && !session.resolvedState.isActive)
        session.endInterruption(.soundServerCorked, shouldResume: true)
        #expect(session.resolvedState.isActive && !session.resolvedState.isInterrupted)
        #expect(
            events.events == [
                .interruptionBegan(.soundServerCorked), .activationChanged(isActive: false),
                .lessonPauseRequested(.interruption(.soundServerCorked)),
                .interruptionEnded(.soundServerCorked, shouldResume: true), .activationChanged(isActive: true),
            ])
    }

    @Test("an interruption that ends without permission waits for explicit reactivation")
    func endedWithoutResume() throws {
        let session = try makeSession()
        try session.setActive(true)
        session.beginInterruption(.announcement)
        session.endInterruption(.announcement, shouldResume: false)
        #expect(!session.resolvedState.isActive && !session.resolvedState.isInterrupted)
        try session.setActive(true)
        #expect(session.resolvedState.isActive)
    }

    @Test("several sources end the interruption only when the last ends, resuming only if all allow it")
    func severalSources() throws {
        let session = try makeSession()
        try session.setActive(true)
        let events = EventRecorder(session)
        session.beginInterruption(.announcement)
        session.beginInterruption(.deviceLost)
        session.beginInterruption(.deviceLost)
        session.endInterruption(.announcement, shouldResume: false)
        #expect(session.resolvedState.isInterrupted)
        session.endInterruption(.deviceLost, shouldResume: true)
        #expect(!session.resolvedState.isInterrupted && !session.resolvedState.isActive)
        let ends = events.events.filter { if case .interruptionEnded = $0 { true } else { false } }
        #expect(ends == [.interruptionEnded(.deviceLost, shouldResume: false)])
        #expect(events.lessonPauses.count == 1)
    }

    @Test("an end without a beginning is ignored")
    func strayEnd() throws {
        let session = try makeSession()
        let events = EventRecorder(session)
        #expect(!session.endInterruption(.soundServerCorked, shouldResume: true))
        #expect(events.events.isEmpty)
    }

    @Test("explicit reactivation ends a dangling interruption")
    func danglingInterruption() throws {
        let session = try makeSession()
        try session.setActive(true)
        session.beginInterruption(.soundServerCorked)
        let events = EventRecorder(session)
        try session.setActive(true)
        #expect(session.resolvedState.isActive && !session.resolvedState.isInterrupted)
        #expect(events.events == [.interruptionEnded(.soundServerCorked, shouldResume: true), .activationChanged(isActive: true)])
        #expect(!session.endInterruption(.soundServerCorked, shouldResume: true))
    }

    @Test("an interruption while RTC is live raises 1025 naming RTC until it ends")
    func rtcInterrupted() throws {
        let session = try makeSession()
        _ = try session.lease(.voiceCall, owner: "rtc")
        let events = EventRecorder(session)
        let line = #line + 1
        session.beginInterruption(.soundServerCorked)
        let alarm = try #require(session.resolvedState.alarms.first)
        #expect(alarm.code == .rtcAudioInterrupted && alarm.code.number == 1025)
        #expect(alarm.owner == "rtc" && alarm.callSite == CallSite(fileID: #fileID, line: line))
        #expect(events.alarms == [alarm])
        session.endInterruption(.soundServerCorked, shouldResume: true)
        #expect(session.resolvedState.alarms.isEmpty)
        #expect(events.events.contains(.alarmCleared(alarm)))
    }

    @Test("an interruption without RTC raises no alarm")
    func interruptedWithoutRTC() throws {
        let session = try makeSession()
        _ = try session.lease(.playback, owner: "courseware")
        session.beginInterruption(.announcement)
        #expect(session.resolvedState.alarms.isEmpty)
    }

    @Test("while the sound server is gone activation fails; its return ends the interruption")
    func mediaServices() throws {
        let session = try makeSession()
        try session.setActive(true)
        let events = EventRecorder(session)
        session.mediaServicesWereLost()
        session.mediaServicesWereLost()
        #expect {
            try session.setActive(true)
        } throws: { error in
            if case .mediaServicesFailed = error as? AudioSessionError { return true }
            return false
        }
        session.mediaServicesWereReset()
        #expect(session.resolvedState.isActive)
        #expect(
            events.events == [
                .mediaServicesWereLost, .interruptionBegan(.mediaServicesLost), .activationChanged(isActive: false),
                .lessonPauseRequested(.interruption(.mediaServicesLost)),
                .mediaServicesWereReset, .interruptionEnded(.mediaServicesLost, shouldResume: true),
                .activationChanged(isActive: true),
            ])
    }

    @Test("alarms the engine raises stay in the resolved state until cleared")
    func engineAlarms() throws {
        let session = try makeSession()
        let events = EventRecorder(session)
        session.raiseAlarm(.playoutLevelTooLow, owner: "rtc-peer-7", message: "peer 7 below -60 dBFS for 5 s")
        session.raiseAlarm(.recordingDeviceBusy, owner: "mic", message: "hw:1 busy", context: ["device": "hw:1"])
        session.raiseAlarm(.playoutLevelTooLow, owner: "rtc-peer-7", message: "peer 7 below -60 dBFS for 10 s")
        let alarms = session.resolvedState.alarms
        #expect(alarms.map(\.code) == [.playoutLevelTooLow, .recordingDeviceBusy])
        #expect(alarms.first?.message == "peer 7 below -60 dBFS for 10 s")
        #expect(session.clearAlarm(.playoutLevelTooLow, owner: "rtc-peer-7"))
        #expect(!session.clearAlarm(.playoutLevelTooLow, owner: "rtc-peer-7"))
        #expect(session.resolvedState.alarms.map(\.code) == [.recordingDeviceBusy])
        #expect(events.alarms.count == 3)
        #expect(events.events.filter { if case .alarmCleared = $0 { true } else { false } }.count == 1)
        #expect(AlarmCode.mediaSuppressed.number == nil)
        #expect(AlarmCode.allCases.compactMap(\.number) == [1025, 1029, 1031, 1032, 1033])
    }
}
