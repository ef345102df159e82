import ClassroomAudio
import Testing

/// The model the property tests keep beside the session, and the steps that change both.
extension SessionPropertyTests {
    /// What the test believes the session holds.
    struct Model {
        var leases: [LeaseToken] = []
        var releasedLeases: [LeaseToken] = []
        var ducks: [DuckToken] = []
        var releasedDucks: [DuckToken] = []
        var devices: [AudioDevice] = []
        var base = AudioConfiguration.initial
        var interruptions: [InterruptionSource] = []
        var resumeWhenEnded = true
        var awaitingReactivation = false
        var activationCount = 0
        var portOverride = PortOverride.none
        /// The configuration before the last step, and whether that step added a lease (rule 1).
        var configurationBefore = AudioConfiguration.initial
        var stepAddedLease = false
        /// Every configuration seen, by base and live leases: it must be a pure function of them.
        var configurations: [Key: AudioConfiguration] = [:]

        struct Key: Hashable {
            let base: AudioConfiguration
            let requirements: [AudioRequirement]
        }

        var requirements: [AudioRequirement] { leases.map(\.requirement) }
        var rtcIsLive: Bool { leases.contains { $0.requirement.isRTC } }
        var isActive: Bool { activationCount > 0 && interruptions.isEmpty && !awaitingReactivation }
    }

    /// Applies one encoded step to the session and the model; returns a description for failures.
    static func apply(_ code: Int, to session: AudioSession, model: inout Model) -> String {
        let kind = code % 15
        let parameter = code / 15
        let configurationBefore = session.resolvedState.configuration
        model.configurationBefore = configurationBefore
        model.stepAddedLease = false
        var endsOverride = false
        var step = ""
        do {
            switch kind {
            case 0:
                let requirement = AudioRequirement.allCases[parameter % AudioRequirement.allCases.count]
                step = "lease \(requirement)"
                let refused = requirement == .measurement && model.leases.contains { $0.requirement == .voiceCall }
                do {
                    let token = try session.lease(requirement, owner: "module-\(parameter % 3)")
                    #expect(!refused, "\(step) should have been refused")
                    model.leases.append(token)
                    model.stepAddedLease = true
                } catch .insufficientPriority {
                    #expect(refused, "\(step) was refused")
                }
            case 1:
                guard !model.leases.isEmpty else { return "no lease to release" }
                let token = model.leases.remove(at: parameter % model.leases.count)
                step = "release \(token)"
                try session.release(token)
                model.releasedLeases.append(token)
            case 2:
                guard !model.releasedLeases.isEmpty else { return "nothing released yet" }
                let token = model.releasedLeases[parameter % model.releasedLeases.count]
                step = "release again \(token)"
                try session.release(token)
            case 3:
                // Category first: playAndRecord alone has thousands of legal configurations, and
                // bases of the other categories are where leases must reconfigure.
                let category = Category.allCases[parameter % Category.allCases.count]
                let ofCategory = legalConfigurationsByCategory[category] ?? [.initial]
                let request = ofCategory[(parameter / Category.allCases.count) % ofCategory.count]
                step = "setCategory \(request)"
                let recorded = try session.setCategory(
                    request.category, mode: request.mode, options: request.options, owner: "direct")
                let expected = DesignModel.policyCorrected(request, rtcIsLive: model.rtcIsLive)
                #expect(
                    recorded.category == expected.category && recorded.mode == expected.mode && recorded.options == expected.options,
                    "\(step) recorded \(recorded), the design corrects it to \(expected)")
                model.base = recorded
            case 4:
                let device = devicePool[parameter % devicePool.count]
                step = "add \(device.id)"
                session.addDevice(device)
                // A device that can carry a route ends the override; a repeated report does not.
                let routable = PortClassifier.standard.classify(device) != nil
                if let index = model.devices.firstIndex(where: { $0.id == device.id }) {
                    endsOverride = routable && model.devices[index] != device
                    model.devices[index] = device
                } else {
                    model.devices.append(device)
                    endsOverride = routable
                }
            case 5:
                let device = devicePool[parameter % devicePool.count]
                step = "remove \(device.id)"
                let known = model.devices.first { $0.id == device.id }
                #expect(session.removeDevice(id: device.id) == (known != nil))
                model.devices.removeAll { $0.id == device.id }
                // Removing a device that was never there, or one that carried no route, is no route change.
                endsOverride = known.map { PortClassifier.standard.classify($0) != nil } ?? false
            case 6:
                step = "duck"
                model.ducks.append(try session.duck(owner: "prompt-\(parameter % 3)"))
            case 7:
                guard !model.ducks.isEmpty else { return "no duck to release" }
                let token = model.ducks.remove(at: parameter % model.ducks.count)
                step = "release \(token)"
                try session.releaseDuck(token)
                model.releasedDucks.append(token)
            case 8:
                let source = InterruptionSource.allCases[parameter % InterruptionSource.allCases.count]
                step = "begin interruption \(source)"
                session.beginInterruption(source)
                if !model.interruptions.contains(source) {
                    if model.interruptions.isEmpty { model.resumeWhenEnded = true }
                    model.interruptions.append(source)
                }
            case 9:
                let source = InterruptionSource.allCases[parameter % InterruptionSource.allCases.count]
                let resume = (parameter / 4) % 2 == 0
                step = "end interruption \(source) resume \(resume)"
                let matched = session.endInterruption(source, shouldResume: resume)
                #expect(matched == model.interruptions.contains(source), "\(step)")
                if matched {
                    model.interruptions.removeAll { $0 == source }
                    model.resumeWhenEnded = model.resumeWhenEnded && resume
                    if model.interruptions.isEmpty {
                        model.awaitingReactivation = !model.resumeWhenEnded
                        model.resumeWhenEnded = true
                    }
                }
            case 10:
                step = "activate"
                let lost = model.interruptions.contains(.mediaServicesLost)
                do {
                    try session.setActive(true)
                    #expect(!lost, "activation during a lost sound server succeeded")
                    model.interruptions.removeAll()
                    model.awaitingReactivation = false
                    model.activationCount += 1
                } catch .mediaServicesFailed {
                    #expect(lost, "activation failed with the sound server present")
                }
            case 11:
                step = "deactivate"
                try session.setActive(false)
                model.activationCount = max(0, model.activationCount - 1)
            case 12:
                let delta = Float(parameter % 21 - 10) / 10
                step = "volume keys \(delta)"
                let before = session.resolvedState.volume
                let after = try session.adjustActiveVolume(by: delta)
                #expect(after.channel == before.channel)
                let floor: Float = before.channel == .call ? 0.1 : 0
                #expect(after.value == min(max(before.value + delta, floor), 1))
            case 13:
                step = "override to speaker"
                let speakerPresent = model.devices.contains {
                    PortClassifier.standard.classify($0)?.port == .builtInSpeaker
                }
                let producesOutput = DesignModel.outputCategories.contains(configurationBefore.category)
                let allowed = producesOutput && speakerPresent
                do {
                    try session.overrideOutputPort(.speaker)
                    #expect(allowed, "\(step) succeeded")
                    model.portOverride = .speaker
                } catch .incompatibleCategory {
                    #expect(!producesOutput)
                } catch .resourceNotAvailable {
                    #expect(!speakerPresent)
                }
            default:
                step = "wake"
                session.systemDidWake()
                endsOverride = true
            }
        } catch {
            Issue.record("\(step) threw \(error)")
        }
        if endsOverride || session.resolvedState.configuration != configurationBefore {
            model.portOverride = .none
        }
        return step
    }
}
