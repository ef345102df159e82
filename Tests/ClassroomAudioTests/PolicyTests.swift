import ClassroomAudio
import Testing

@Suite("Policy on direct configuration requests")
struct PolicyTests {
    @Test("without RTC a legal request is recorded as asked, with no correction")
    func noRTCNoCorrection() throws {
        let session = try makeSession()
        let events = EventRecorder(session)
        let recorded = try session.setCategory(.playback, mode: .moviePlayback, owner: "courseware")
        #expect(recorded == (try AudioConfiguration(category: .playback, mode: .moviePlayback)))
        #expect(session.configuration == recorded)
        #expect(events.alarms.isEmpty)
        #expect(!events.events.contains { if case .correctedByPolicy = $0 { true } else { false } })
    }

    @Test("while RTC is live every legal request is corrected to one that mixes and keeps RTC's options")
    func everyRequestCorrected() {
        for request in allLegalConfigurations {
            let corrected = SessionPolicy.corrected(request, rtcIsLive: true)
            #expect(corrected.mixesWithOthers, "\(request) → \(corrected)")
            #expect(corrected.category != .record && corrected.category != .soloAmbient)
            let legal = corrected.category.allowedOptions.intersection(CategoryOptions.rtcPolicy)
            #expect(corrected.options.isSuperset(of: legal))
            #expect(
                (try? AudioConfiguration(category: corrected.category, mode: corrected.mode, options: corrected.options))
                    == corrected)
            #expect(SessionPolicy.corrected(request, rtcIsLive: false) == request)
            if request.compliesWithRTCPolicy {
                #expect(corrected == request)
            }
        }
    }

    @Test("a corrected request is an event and a 1029 alarm naming the owner and the call site")
    func correctionIsReported() throws {
        let session = try makeSession()
        let rtc = try session.lease(.voiceCall, owner: "rtc")
        let events = EventRecorder(session)
        let line = #line + 1
        let recorded = try session.setCategory(.playback, owner: "quiz-module")
        #expect(recorded == (try AudioConfiguration(category: .playback, options: .mixWithOthers)))
        let correction = try #require(
            events.events.compactMap { event -> PolicyCorrection? in
                if case .correctedByPolicy(let correction) = event { return correction }
                return nil
            }.first)
        #expect(correction.owner == "quiz-module")
        #expect(correction.callSite == CallSite(fileID: #fileID, line: line))
        #expect(correction.rtcOwners == ["rtc"])
        #expect(correction.summary == "added mixWithOthers")
        let alarm = try #require(events.alarms.first)
        #expect(alarm.code == .sessionCorrected && alarm.code.number == 1029)
        #expect(alarm.owner == "quiz-module")
        #expect(alarm.callSite.line == line && alarm.callSite.fileID == #fileID)
        #expect(alarm.context["requested"] == "playback/default [none]")
        #expect(session.configuration.compliesWithRTCPolicy)
        try session.release(rtc)
        #expect(session.configuration == recorded)
    }

    @Test("an unattributed request is attributed to the caller's file")
    func defaultOwner() throws {
        let session = try makeSession()
        _ = try session.lease(.rtcPlayback, owner: "rtc")
        let events = EventRecorder(session)
        try session.setCategory(.soloAmbient)
        #expect(events.alarms.first?.owner == #fileID)
        #expect(session.state.base.category == .ambient)
    }

    @Test("record-only during RTC becomes playAndRecord, because record-only would stop RTC playback")
    func recordOnlyCorrected() throws {
        let session = try makeSession()
        _ = try session.lease(.rtcPlayback, owner: "rtc")
        let recorded = try session.setCategory(.record, mode: .videoRecording, owner: "camera")
        #expect(recorded.category == .playAndRecord && recorded.mode == .videoRecording)
        #expect(recorded.compliesWithRTCPolicy)
    }

    @Test("an illegal request is refused with a message naming the offending part, during RTC too")
    func illegalRefused() throws {
        let session = try makeSession()
        _ = try session.lease(.voiceCall, owner: "rtc")
        let events = EventRecorder(session)
        #expect {
            try session.setCategory(.playback, mode: .voiceChat, owner: "webview")
        } throws: { error in
            guard case .incompatibleCategory(let reason) = error as? AudioSessionError else { return false }
            return reason.contains("voiceChat") && reason.contains("playback")
        }
        #expect {
            try session.setCategory(.playback, options: [.defaultToSpeaker], owner: "webview")
        } throws: { error in
            guard case .badParam(let reason) = error as? AudioSessionError else { return false }
            return reason.contains("defaultToSpeaker") && reason.contains("playback")
        }
        #expect(events.events.isEmpty)
    }

    @Test("repeating the current base request changes nothing and announces nothing")
    func repeatedRequest() throws {
        let session = try makeSession()
        try session.setCategory(.playback, options: .mixWithOthers, owner: "courseware")
        let events = EventRecorder(session)
        try session.setCategory(.playback, options: .mixWithOthers, owner: "courseware")
        #expect(events.events.isEmpty)
    }
}
