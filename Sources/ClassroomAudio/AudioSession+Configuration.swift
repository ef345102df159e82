extension AudioSession {
    /// Sets the app's base configuration directly, for modules written without leases.
    ///
    /// The request is validated, then passes the policy: while RTC is live a request that would
    /// silence RTC is corrected, announced as ``SessionEvent/correctedByPolicy(_:)`` and a 1029
    /// alarm naming the owner and call site. Live leases still decide the effective configuration.
    ///
    /// - Parameters:
    ///   - category: what the app does with audio (playback, recording, both).
    ///   - mode: how the category is tuned (voice chat, measurement …).
    ///   - options: how it mixes with others and which routes it allows.
    ///   - owner: the module asking, for attribution; the caller's `#fileID` when omitted.
    ///   - fileID: the caller's file, for the alarm that names the call site.
    ///   - line: the caller's line, with `fileID`.
    /// - Returns: the base configuration as recorded, after any correction.
    /// - Throws: ``AudioSessionError/incompatibleCategory(reason:)`` or
    ///   ``AudioSessionError/badParam(reason:)`` for an illegal combination, naming the offending part.
    @discardableResult
    public func setCategory(
        _ category: Category, mode: Mode = .default, options: CategoryOptions = [], owner: String? = nil,
        fileID: String = #fileID, line: Int = #line
    ) throws(AudioSessionError) -> AudioConfiguration {
        let owner = owner ?? fileID
        let callSite = CallSite(fileID: fileID, line: line)
        let request: AudioConfiguration
        do {
            request = try AudioConfiguration(category: category, mode: mode, options: options)
        } catch {
            logger.warning(
                "refused audio configuration request",
                metadata: ["owner": "\(owner)", "callSite": "\(callSite)", "error": "\(error)"])
            throw error
        }
        return mutate { state, _, mutation in
            let corrected = SessionPolicy.corrected(request, rtcIsLive: state.rtcIsLive)
            if corrected != request {
                let correction = PolicyCorrection(
                    owner: owner, callSite: callSite, requested: request, corrected: corrected,
                    rtcOwners: state.rtcOwners)
                let alarm = Alarm(
                    code: .sessionCorrected, owner: owner, callSite: callSite, message: correction.description,
                    context: [
                        "requested": "\(request)", "corrected": "\(corrected)",
                        "rtcOwners": state.rtcOwners.joined(separator: ", "),
                    ])
                mutation.leading.append(.correctedByPolicy(correction))
                mutation.leading.append(.alarm(alarm))
                logger.warning("audio session request corrected by policy", metadata: ["correction": "\(correction)"])
            }
            state.base = corrected
            mutation.configurationReason = .categoryRequested(owner: owner, callSite: callSite)
            return corrected
        }
    }

    /// Takes a lease: the session keeps a configuration that satisfies it until it is released.
    ///
    /// If the current configuration already satisfies every lease, nothing is reconfigured.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` for an empty owner;
    ///   ``AudioSessionError/insufficientPriority(reason:)`` for a measurement lease while a voice
    ///   call needs voice processing.
    public func lease(
        _ requirement: AudioRequirement, owner: String, fileID: String = #fileID, line: Int = #line
    ) throws(AudioSessionError) -> LeaseToken {
        guard !owner.allSatisfy(\.isWhitespace) else {
            throw .badParam(reason: "a \(requirement) lease needs the owning module's name, for attribution")
        }
        let callSite = CallSite(fileID: fileID, line: line)
        return try mutate { state, _, mutation throws(AudioSessionError) in
            if requirement == .measurement, let call = state.leases.first(where: { $0.requirement == .voiceCall }) {
                throw .insufficientPriority(
                    reason: "\(owner) asked for measurement, which needs unprocessed audio, while \(call.token) "
                        + "needs voice processing; release the call first")
            }
            let token = LeaseToken(
                sessionID: state.sessionID, serial: state.issueSerial(), owner: owner, requirement: requirement)
            state.leases.append(Lease(token: token, callSite: callSite))
            mutation.configurationReason = .leaseAcquired(token)
            logger.debug("lease taken", metadata: ["lease": "\(token)", "callSite": "\(callSite)"])
            return token
        }
    }

    /// Releases a lease; the configuration returns to what the remaining leases need.
    ///
    /// Releasing a token twice is harmless.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` for a token of another session, or one
    ///   this session revoked.
    public func release(_ token: LeaseToken) throws(AudioSessionError) {
        try mutate { state, _, mutation throws(AudioSessionError) in
            try state.validateToken(sessionID: token.sessionID, serial: token.serial, describedAs: "\(token)")
            guard let index = state.leases.firstIndex(where: { $0.token.serial == token.serial }) else { return }
            state.leases.remove(at: index)
            mutation.configurationReason = .leaseReleased(token)
            logger.debug("lease released", metadata: ["lease": "\(token)"])
        }
    }

    /// Revokes every lease and duck an owner holds, for a module torn down without releasing.
    ///
    /// Their tokens become stale: releasing one later is an error, so the module learns of it.
    ///
    /// - Returns: how many leases and ducks were revoked.
    @discardableResult
    public func revokeAll(heldBy owner: String) -> Int {
        mutate { state, _, mutation in
            let leases = state.leases.filter { $0.owner == owner }.map(\.token.serial)
            let ducks = state.ducks.filter { $0.owner == owner }.map(\.serial)
            guard !leases.isEmpty || !ducks.isEmpty else { return 0 }
            state.leases.removeAll { $0.owner == owner }
            state.ducks.removeAll { $0.owner == owner }
            state.revokedSerials.formUnion(leases + ducks)
            mutation.configurationReason = .leasesRevoked(owner: owner)
            logger.notice(
                "revoked everything held by \(owner)", metadata: ["leases": "\(leases.count)", "ducks": "\(ducks.count)"])
            return leases.count + ducks.count
        }
    }
}
