import ClassroomAudio
import PropertyBased
import Testing

/// Random sequences of everything a classroom does to a session, checked after every step
/// against a model the test keeps itself and against DESIGN §4 as `DesignModel` states it.
@Suite("Session properties")
struct SessionPropertyTests {
    /// Devices that come and go during the random runs.
    static let devicePool: [AudioDevice] = [
        Devices.speaker, Devices.builtInMic, Devices.speakerMonitor, Devices.receiver, Devices.usbHeadset,
        Devices.usbHeadsetMic, Devices.jackHeadphones, Devices.hdmi, Devices.usbMic, Devices.lineOut,
        Devices.bluetoothHeadsetA2DP, Devices.bluetoothHeadsetHFP, Devices.bluetoothHeadsetMic, Devices.bluetoothSpeaker,
    ]

    static let legalConfigurationsByCategory = Dictionary(grouping: allLegalConfigurations, by: \.category)

    /// Checks the session against the model and DESIGN §4's rules (`DesignModel`).
    static func check(_ session: AudioSession, against model: inout Model, after step: String) throws {
        let state = session.state
        let resolved = session.resolvedState
        // No lease or duck leaks, and acquisition order is kept.
        try #require(state.leases.map(\.token) == model.leases, "leases after \(step)")
        try #require(state.ducks == model.ducks, "ducks after \(step)")
        try #require(state.devices == model.devices, "devices after \(step)")
        try #require(state.base == model.base, "base after \(step)")
        // The configuration: legal, meeting every live lease's needs (rules 2, 3, 5 and the profiles).
        let configuration = resolved.configuration
        let requirements = model.requirements
        let needs = DesignModel.Needs(requirements)
        let illegal = DesignModel.illegality(of: configuration)
        try #require(illegal.isEmpty, "\(configuration) after \(step): \(illegal)")
        let unmet = DesignModel.unmet(needs, by: configuration)
        try #require(unmet.isEmpty, "\(configuration) for \(requirements) after \(step): \(unmet)")
        if requirements.isEmpty {
            try #require(configuration == model.base, "no lease, yet \(configuration) is not the base \(model.base) after \(step)")
        }
        // Rule 1: a new lease the configuration already satisfied reconfigures nothing.
        if model.stepAddedLease, DesignModel.unmet(needs, by: model.configurationBefore).isEmpty {
            try #require(configuration == model.configurationBefore, "rule 1: \(step) moved \(model.configurationBefore) to \(configuration)")
        }
        // Rule 4: a pure function of the base and the live leases, however they were reached.
        let key = Model.Key(base: model.base, requirements: requirements)
        if let seen = model.configurations[key] {
            try #require(configuration == seen, "rule 4: \(requirements) on \(model.base) gave \(seen) before and \(configuration) after \(step)")
        } else {
            model.configurations[key] = configuration
        }
        try #require(resolved.processingProfile == DesignModel.profile(of: configuration.mode), "profile after \(step)")
        let recording = DesignModel.isRecording(configuration, base: model.base, requirements: requirements)
        try #require(resolved.isRecording == recording, "recording after \(step)")
        let route = DesignModel.route(configuration, recording: recording, devices: model.devices, override: model.portOverride)
        try #require(resolved.route == route, "route after \(step): \(resolved.route), the design gives \(route)")
        if model.rtcIsLive {
            try #require(DesignModel.mixesWithOthers(configuration), "policy after \(step)")
        }
        // Interruptions and activation.
        try #require(resolved.isInterrupted == !model.interruptions.isEmpty, "interrupted after \(step)")
        try #require(resolved.isActive == model.isActive, "active after \(step)")
        try #require(
            resolved.alarms.contains { $0.code == .rtcAudioInterrupted } == (model.rtcIsLive && !model.interruptions.isEmpty),
            "1025 after \(step)")
        // Volumes in range, the active channel following the profile.
        try #require((0...1).contains(state.mediaVolume) && (0.1...1).contains(state.callVolume), "volumes after \(step)")
        try #require(resolved.volume.channel == (resolved.processingProfile == .voice ? .call : .media))
        try #require(resolved.volume.value == state.volume(of: resolved.volume.channel))
        // Ducking: 1 with no holder, the factor with any.
        try #require(resolved.ducking.factor == (model.ducks.isEmpty ? 1 : 0.1), "ducking after \(step)")
    }

    /// Checks that configuration and route events form unbroken chains, as in-order delivery guarantees.
    static func checkChains(_ events: [SessionEvent], initial: ResolvedState, final: ResolvedState) {
        var configuration = initial.configuration
        var route = initial.route
        var ducked = initial.ducking.isDucked
        var active = initial.isActive
        for event in events {
            switch event {
            case .configurationChanged(let old, let new, _):
                #expect(old == configuration && old != new)
                configuration = new
            case .routeChanged(_, let previous, let current):
                #expect(previous == route)
                route = current
            case .duckingChanged(let ducking):
                #expect(ducking.isDucked != ducked)
                ducked = ducking.isDucked
            case .activationChanged(let isActive):
                #expect(isActive != active)
                active = isActive
            default:
                break
            }
        }
        #expect(configuration == final.configuration)
        #expect(route == final.route)
        #expect(ducked == final.ducking.isDucked)
        #expect(active == final.isActive)
    }

    // Shrinking 200-step sequences takes minutes; a failure prints its fixed seed instead.
    @Test("random classroom sequences keep the session equal to its model, step after step", .shrinking(false))
    func randomSequences() async throws {
        await propertyCheck(count: 25, input: Gen.int(in: 0...14_999).array(of: 200)) { codes throws in
            let session: AudioSession
            do {
                session = try makeSession()
            } catch {
                Issue.record("no session: \(error)")
                return
            }
            let initial = session.resolvedState
            let events = EventRecorder(session)
            var model = Model()
            for code in codes {
                let step = Self.apply(code, to: session, model: &model)
                // Stop at the first divergence: everything after it would only repeat it.
                try Self.check(session, against: &model, after: step)
            }
            Self.checkChains(events.events, initial: initial, final: session.resolvedState)
            // Releasing everything in the order left returns to the base with nothing held.
            for token in model.leases { try? session.release(token) }
            for token in model.ducks { try? session.releaseDuck(token) }
            #expect(session.state.leases.isEmpty && session.state.ducks.isEmpty)
            #expect(session.configuration == model.base)
            #expect(session.resolvedState.ducking.factor == 1)
        }
    }

    @Test("several tasks at once keep every invariant and every event chain")
    func concurrentTasks() async throws {
        await propertyCheck(count: 2, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            let session: AudioSession
            do {
                session = try makeSession()
            } catch {
                Issue.record("no session: \(error)")
                return
            }
            let initial = session.resolvedState
            let events = EventRecorder(session)
            // An observer that calls back into the session while events are being delivered.
            let reentrant = session.observe { [weak session] event in
                guard let session else { return }
                switch event {
                case .interruptionBegan:
                    session.raiseAlarm(.mediaSuppressed, owner: "observer", message: "interrupted")
                case .interruptionEnded:
                    session.clearAlarm(.mediaSuppressed, owner: "observer")
                default:
                    _ = session.state
                }
            }
            let tasks = 8
            let steps = 300
            let completed = await withTaskGroup(of: Int.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        Self.runWorker(task, seed: seed, steps: steps, on: session)
                        return 1
                    }
                }
                return await group.reduce(0, +)
            }
            reentrant.cancel()
            #expect(completed == tasks)
            for source in InterruptionSource.allCases { session.endInterruption(source, shouldResume: true) }
            let final = session.resolvedState
            #expect(session.state.leases.isEmpty && session.state.ducks.isEmpty && session.state.devices.isEmpty)
            #expect(final.configuration == session.state.base)
            #expect(final.ducking.factor == 1)
            Self.checkChains(events.events, initial: initial, final: final)
            #expect(events.events.count > tasks * steps / 10)
        }
    }

    /// One task's random steps on a shared session, checking what it can see after each.
    static func runWorker(_ task: Int, seed: UInt64, steps: Int, on session: AudioSession) {
        var random = SplitMix64(seed: seed &+ UInt64(task) &* 0x9E37_79B9)
        var leases: [LeaseToken] = []
        var released: [LeaseToken] = []
        var ducks: [DuckToken] = []
        var releasedDucks: [DuckToken] = []
        let devices = devicePool.map { device in
            AudioDevice(
                id: "\(device.id)#\(task)", name: device.name, direction: device.direction,
                properties: device.properties, isDefault: device.isDefault)
        }
        let owner = "task-\(task)"
        for _ in 0..<steps {
            do {
                switch random.next() % 12 {
                case 0, 1:
                    let requirement = AudioRequirement.allCases.randomElement(using: &random) ?? .playback
                    do {
                        leases.append(try session.lease(requirement, owner: owner))
                    } catch .insufficientPriority {
                        #expect(requirement == .measurement)
                    }
                case 2, 3:
                    if !leases.isEmpty {
                        let token = leases.remove(at: Int(random.next() % UInt64(leases.count)))
                        try session.release(token)
                        released.append(token)
                    }
                case 4:
                    if let token = released.randomElement(using: &random) { try session.release(token) }
                case 5:
                    ducks.append(try session.duck(owner: owner))
                case 6:
                    if !ducks.isEmpty {
                        let token = ducks.remove(at: Int(random.next() % UInt64(ducks.count)))
                        try session.releaseDuck(token)
                        releasedDucks.append(token)
                    }
                case 7:
                    let request = allLegalConfigurations.randomElement(using: &random) ?? .initial
                    try session.setCategory(request.category, mode: request.mode, options: request.options, owner: owner)
                case 8:
                    if let device = devices.randomElement(using: &random) {
                        if random.next() % 2 == 0 { session.addDevice(device) } else { session.removeDevice(id: device.id) }
                    }
                case 9:
                    let source = InterruptionSource.allCases.randomElement(using: &random) ?? .announcement
                    if random.next() % 2 == 0 {
                        session.beginInterruption(source)
                    } else {
                        session.endInterruption(source, shouldResume: random.next() % 2 == 0)
                    }
                case 10:
                    do {
                        try session.setActive(random.next() % 2 == 0)
                    } catch .mediaServicesFailed {
                        // Another task reported the sound server lost; activation is refused until it returns.
                    }
                default:
                    try session.adjustActiveVolume(by: Float(Int(random.next() % 21) - 10) / 10)
                }
            } catch {
                Issue.record("task \(task) step threw \(error)")
            }
            let state = session.state
            let resolved = SessionResolver.resolve(state)
            let held = Set(state.leases.map(\.token))
            #expect(leases.allSatisfy(held.contains), "a live lease of task \(task) is missing")
            #expect(!released.contains(where: held.contains), "a released lease of task \(task) leaked")
            #expect(ducks.allSatisfy(state.ducks.contains) && !releasedDucks.contains(where: state.ducks.contains))
            #expect(zip(state.leases, state.leases.dropFirst()).allSatisfy { $0.token.serial < $1.token.serial })
            #expect(DesignModel.illegality(of: resolved.configuration).isEmpty)
            #expect(DesignModel.unmet(DesignModel.Needs(state.requirements), by: resolved.configuration).isEmpty)
            #expect((0...1).contains(state.mediaVolume) && (0.1...1).contains(state.callVolume))
            #expect(resolved.ducking.factor == (state.ducks.isEmpty ? 1 : 0.1))
        }
        for token in leases { try? session.release(token) }
        for token in ducks { try? session.releaseDuck(token) }
        for device in devices { session.removeDevice(id: device.id) }
    }
}
