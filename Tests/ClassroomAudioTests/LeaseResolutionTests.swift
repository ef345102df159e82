import ClassroomAudio
import Testing

@Suite("Leases and the effective configuration (rules 1–5)")
struct LeaseResolutionTests {
    private static let playingBases = allLegalConfigurations.filter {
        SessionResolver.playingCategories.contains($0.category)
    }

    @Test("rule 1: a lease the current configuration already satisfies reconfigures nothing")
    func rule1NoReconfiguration() throws {
        let session = try makeSession()
        let rtc = try session.lease(.voiceCall, owner: "rtc")
        let inCall = session.configuration
        let events = EventRecorder(session)
        let reading = try session.lease(.record, owner: "follow-reading")
        let courseware = try session.lease(.playback, owner: "courseware")
        let effects = try session.lease(.effects, owner: "effects")
        try session.release(reading)
        try session.release(effects)
        try session.release(courseware)
        #expect(session.configuration == inCall)
        #expect(events.configurationChanges.isEmpty)
        try session.release(rtc)
        #expect(events.configurationChanges.count == 1)
    }

    @Test("rule 1: for every legal base and every lease, a base that satisfies the lease is kept as it stands")
    func rule1ForEveryBase() {
        for base in allLegalConfigurations {
            for requirement in AudioRequirement.allCases where SessionResolver.satisfies(base, [requirement]) {
                #expect(SessionResolver.configuration(base: base, requirements: [requirement]) == base)
            }
        }
    }

    @Test("rule 1: adding a lease the resolved configuration satisfies never changes it")
    func rule1Monotonic() {
        for base in allLegalConfigurations {
            for first in AudioRequirement.allCases {
                for second in AudioRequirement.allCases {
                    let before = SessionResolver.configuration(base: base, requirements: [first])
                    let after = SessionResolver.configuration(base: base, requirements: [first, second])
                    #expect(SessionResolver.satisfies(after, [first, second]))
                    if SessionResolver.satisfies(before, [first, second]) {
                        #expect(after == before, "\(base) + \(first) + \(second)")
                    }
                }
            }
        }
    }

    @Test("rule 2: anything that records resolves to playAndRecord, never record-only", arguments: [
        AudioRequirement.record, .voiceCall, .measurement,
    ])
    func rule2Recording(requirement: AudioRequirement) {
        for base in allLegalConfigurations {
            let resolved = SessionResolver.configuration(base: base, requirements: [requirement])
            #expect(resolved.category == .playAndRecord, "\(base) + \(requirement) gave \(resolved)")
            #expect(SessionResolver.isRecording(configuration: resolved, base: base, requirements: [requirement]))
        }
    }

    @Test("rule 2: voice calls get a chat mode and measurement gets the raw profile")
    func rule2Profiles() {
        for base in allLegalConfigurations {
            #expect(SessionResolver.configuration(base: base, requirements: [.voiceCall]).processingProfile == .voice)
            #expect(SessionResolver.configuration(base: base, requirements: [.measurement]).processingProfile == .raw)
            #expect(SessionResolver.configuration(base: base, requirements: [.measurement, .voiceCall]).processingProfile == .voice)
        }
    }

    @Test("rule 3: play-only needs are satisfied by playAndRecord, playback or ambient as they stand", arguments: [
        AudioRequirement.playback, .effects,
    ])
    func rule3PlayOnly(requirement: AudioRequirement) throws {
        for base in Self.playingBases {
            #expect(SessionResolver.configuration(base: base, requirements: [requirement]) == base)
        }
        let fromDefault = SessionResolver.configuration(base: .initial, requirements: [requirement])
        #expect(fromDefault.category == (requirement == .playback ? .playback : .ambient))
        // Playback after effects: ambient already satisfies it as it stands (rule 1 over rule 3).
        #expect(SessionResolver.configuration(base: .initial, requirements: [.effects, .playback]).category == .ambient)
        #expect(SessionResolver.configuration(base: .initial, requirements: [.playback, .effects]).category == .playback)
    }

    @Test("rule 4: releasing in any order returns each time to what the remaining leases need")
    func rule4AnyReleaseOrder() throws {
        let bases = [
            AudioConfiguration.initial, try AudioConfiguration(category: .playback, options: .duckOthers),
            try AudioConfiguration(category: .ambient),
        ]
        let needs: [AudioRequirement] = [.playback, .record, .rtcPlayback, .effects]
        for base in bases {
            for order in permutations(Array(needs.indices)) {
                var settings = SessionSettings()
                settings.baseConfiguration = base
                let session = try makeSession(settings)
                let tokens = try needs.map { try session.lease($0, owner: "module-\($0)") }
                var live = Array(needs.indices)
                for index in order {
                    try session.release(tokens[index])
                    live.removeAll { $0 == index }
                    let expected = SessionResolver.configuration(base: base, requirements: live.map { needs[$0] })
                    #expect(session.configuration == expected)
                }
                #expect(session.configuration == base)
                #expect(session.state.leases.isEmpty)
            }
        }
    }

    @Test("rule 5: while RTC is live the effective configuration mixes, prefers the speaker and allows Bluetooth")
    func rule5Policy() {
        for base in allLegalConfigurations {
            for other in AudioRequirement.allCases {
                for rtc in [AudioRequirement.voiceCall, .rtcPlayback] {
                    for requirements in [[rtc], [rtc, other], [other, rtc]] {
                        let resolved = SessionResolver.configuration(base: base, requirements: requirements)
                        #expect(resolved.compliesWithRTCPolicy, "\(base) + \(requirements) gave \(resolved)")
                        #expect(resolved.options.isSuperset(of: [.mixWithOthers, .defaultToSpeaker, .allowBluetooth]))
                    }
                }
            }
        }
    }

    @Test("the resolved configuration always satisfies the leases it was resolved for")
    func resolvedSatisfies() {
        for base in allLegalConfigurations {
            for first in AudioRequirement.allCases {
                for second in AudioRequirement.allCases {
                    let requirements = [first, second]
                    let resolved = SessionResolver.configuration(base: base, requirements: requirements)
                    #expect(SessionResolver.satisfies(resolved, requirements), "\(base) + \(requirements)")
                    // Whatever was built is a legal configuration.
                    #expect(
                        (try? AudioConfiguration(category: resolved.category, mode: resolved.mode, options: resolved.options))
                            == resolved)
                }
            }
        }
    }

    @Test("no lease leaves the base configuration in force")
    func noLeases() {
        for base in allLegalConfigurations {
            #expect(SessionResolver.configuration(base: base, requirements: []) == base)
        }
    }

    @Test("a measurement lease is refused while a voice call needs voice processing")
    func measurementDuringCall() throws {
        let session = try makeSession()
        let call = try session.lease(.voiceCall, owner: "rtc")
        #expect {
            try session.lease(.measurement, owner: "mic-check")
        } throws: { error in
            guard case .insufficientPriority(let reason) = error as? AudioSessionError else { return false }
            return reason.contains("mic-check") && reason.contains("rtc")
        }
        try session.release(call)
        let check = try session.lease(.measurement, owner: "mic-check")
        #expect(session.resolvedState.processingProfile == .raw)
        let secondCall = try session.lease(.voiceCall, owner: "rtc")
        #expect(session.resolvedState.processingProfile == .voice)
        try session.release(secondCall)
        #expect(session.resolvedState.processingProfile == .raw)
        try session.release(check)
    }

    @Test("releasing twice is harmless")
    func releaseTwice() throws {
        let session = try makeSession()
        let token = try session.lease(.record, owner: "follow-reading")
        try session.release(token)
        let events = EventRecorder(session)
        try session.release(token)
        #expect(events.events.isEmpty)
        #expect(session.state.leases.isEmpty)
    }

    @Test("releasing a token of another session is an error that says so")
    func foreignToken() throws {
        let session = try makeSession()
        let other = try makeSession()
        let token = try other.lease(.playback, owner: "courseware")
        #expect {
            try session.release(token)
        } throws: { error in
            guard case .badParam(let reason) = error as? AudioSessionError else { return false }
            return reason.contains("another") || reason.contains("not to this one")
        }
        let duck = try other.duck(owner: "announcement")
        #expect(throws: AudioSessionError.self) { try session.releaseDuck(duck) }
        #expect(other.state.leases.count == 1)
    }

    @Test("releasing a revoked token is an error that calls it stale")
    func staleToken() throws {
        let session = try makeSession()
        let token = try session.lease(.playback, owner: "webview")
        let duck = try session.duck(owner: "webview")
        let kept = try session.lease(.effects, owner: "effects")
        #expect(session.revokeAll(heldBy: "webview") == 2)
        #expect(session.state.leases.map(\.token) == [kept])
        #expect(session.resolvedState.ducking.factor == 1)
        for _ in 0..<2 {
            #expect {
                try session.release(token)
            } throws: { error in
                guard case .badParam(let reason) = error as? AudioSessionError else { return false }
                return reason.contains("stale")
            }
        }
        #expect(throws: AudioSessionError.self) { try session.releaseDuck(duck) }
        #expect(session.revokeAll(heldBy: "nobody") == 0)
    }

    @Test("a lease without an owner is refused")
    func ownerRequired() throws {
        let session = try makeSession()
        #expect(throws: AudioSessionError.self) { try session.lease(.playback, owner: "  ") }
        #expect(throws: AudioSessionError.self) { try session.duck(owner: "") }
    }

    @Test("configuration changes name the lease that caused them")
    func changeReasons() throws {
        let session = try makeSession()
        let events = EventRecorder(session)
        let token = try session.lease(.playback, owner: "courseware")
        try session.release(token)
        let reasons = events.configurationChanges.map(\.reason)
        #expect(reasons == [.leaseAcquired(token), .leaseReleased(token)])
    }
}
