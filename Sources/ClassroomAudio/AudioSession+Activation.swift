extension AudioSession {
    /// Activates or deactivates the session, counting activations.
    ///
    /// Each `setActive(true)` must be balanced by a `setActive(false)`; the session is inactive
    /// once the count returns to zero. Activating also ends a dangling interruption (one whose
    /// "ended" never came) and an episode that ended without permission to resume. Deactivating an
    /// inactive session is harmless.
    ///
    /// - Parameters:
    ///   - active: true to activate (one more activation), false to deactivate (one fewer).
    ///   - stopRunningIO: deactivate even though I/O is running; the engine stops it.
    ///   - fileID: the caller's file, for the alarm that names who asked.
    ///   - line: the caller's line, with `fileID`.
    /// - Throws: ``AudioSessionError/mediaServicesFailed(reason:)`` when activating while the sound
    ///   server is gone; ``AudioSessionError/isBusy(reason:)`` when the last deactivation would cut
    ///   off running I/O and `stopRunningIO` is false.
    public func setActive(
        _ active: Bool, stopRunningIO: Bool = false, fileID: String = #fileID, line: Int = #line
    ) throws(AudioSessionError) {
        let ioRunning = active ? false : hardware.isIORunning
        let callSite = CallSite(fileID: fileID, line: line)
        try mutate { state, _, mutation throws(AudioSessionError) in
            if active {
                guard !state.mediaServicesLost else {
                    throw .mediaServicesFailed(
                        reason: "the sound server is gone; activate again once it is back (mediaServicesWereReset)")
                }
                if let dangling = state.interruption.active.last {
                    mutation.leading.append(.interruptionEnded(dangling.source, shouldResume: true))
                    logger.notice(
                        "explicit reactivation ended a dangling interruption",
                        metadata: ["source": "\(dangling.source)", "callSite": "\(callSite)"])
                }
                state.interruption = InterruptionState()
                state.activationCount += 1
            } else {
                guard state.activationCount > 0 else { return }
                if state.activationCount == 1, ioRunning, !stopRunningIO {
                    throw .isBusy(
                        reason: "audio input or output is still running; stop it first, "
                            + "or deactivate with stopRunningIO (requested at \(callSite))")
                }
                state.activationCount -= 1
            }
        }
    }

    /// Reports that an interruption began: the session becomes inactive, the lesson is asked to
    /// pause and the uplink is muted (``ResolvedState/isInterrupted``).
    ///
    /// While RTC is live this raises the 1025 alarm until the interruption ends. A source that
    /// already interrupts the session is ignored.
    public func beginInterruption(_ source: InterruptionSource, fileID: String = #fileID, line: Int = #line) {
        let began = mutate { state, _, mutation in
            Self.begin(source, at: CallSite(fileID: fileID, line: line), in: &state, mutation: &mutation)
        }
        if began {
            logger.notice("interruption began", metadata: ["source": "\(source)", "callSite": "\(fileID):\(line)"])
        }
    }

    /// Reports that an interruption ended.
    ///
    /// When the last interruption ends, the session announces ``SessionEvent/interruptionEnded(_:shouldResume:)``:
    /// if every source allowed resuming, the session is active again (when it was activated);
    /// otherwise it waits for an explicit `setActive(true)`.
    ///
    /// - Returns: false when no interruption from this source was in progress (the report is ignored).
    @discardableResult
    public func endInterruption(_ source: InterruptionSource, shouldResume: Bool) -> Bool {
        let matched = mutate { state, _, mutation in
            Self.end(source, shouldResume: shouldResume, in: &state, mutation: &mutation)
        }
        if matched {
            logger.notice("interruption ended", metadata: ["source": "\(source)", "shouldResume": "\(shouldResume)"])
        } else {
            logger.debug("ignored the end of an interruption that was not in progress", metadata: ["source": "\(source)"])
        }
        return matched
    }

    /// Reports that the sound server died: an interruption until ``mediaServicesWereReset()``.
    public func mediaServicesWereLost(fileID: String = #fileID, line: Int = #line) {
        mutate { state, _, mutation in
            guard !state.mediaServicesLost else { return }
            mutation.leading.append(.mediaServicesWereLost)
            _ = Self.begin(.mediaServicesLost, at: CallSite(fileID: fileID, line: line), in: &state, mutation: &mutation)
        }
        logger.error("sound server lost")
    }

    /// Reports that the sound server is back; the engine rebuilds everything from the resolved state.
    public func mediaServicesWereReset() {
        mutate { state, _, mutation in
            guard state.mediaServicesLost else { return }
            mutation.leading.append(.mediaServicesWereReset)
            _ = Self.end(.mediaServicesLost, shouldResume: true, in: &state, mutation: &mutation)
        }
        logger.notice("sound server reset")
    }

    private static func begin(
        _ source: InterruptionSource, at callSite: CallSite, in state: inout SessionState,
        mutation: inout SessionMutation
    ) -> Bool {
        guard !state.interruption.contains(source) else { return false }
        if !state.interruption.isInterrupted {
            state.interruption.resumeWhenEnded = true
            mutation.leading.append(.interruptionBegan(source))
            mutation.trailing.append(.lessonPauseRequested(.interruption(source)))
        }
        state.interruption.active.append(Interruption(source: source, callSite: callSite))
        return true
    }

    private static func end(
        _ source: InterruptionSource, shouldResume: Bool, in state: inout SessionState,
        mutation: inout SessionMutation
    ) -> Bool {
        guard let index = state.interruption.active.firstIndex(where: { $0.source == source }) else { return false }
        state.interruption.active.remove(at: index)
        state.interruption.resumeWhenEnded = state.interruption.resumeWhenEnded && shouldResume
        if state.interruption.active.isEmpty {
            let resume = state.interruption.resumeWhenEnded
            state.interruption.awaitingReactivation = !resume
            state.interruption.resumeWhenEnded = true
            mutation.leading.append(.interruptionEnded(source, shouldResume: resume))
        }
        return true
    }
}
