import ClassroomAudio
import Dispatch
import GStreamer

/// The student's microphone as the session wants it: opening, rebuilding or reconfiguring its
/// chain on each session change, and alarm 1033 when its device refuses.
extension SessionController {
    func applyMicrophone(new: ResolvedState, old: ResolvedState?) throws(EngineError) {
        let source = microphoneSource(for: new)
        // With the sound server gone the microphone cannot open; it comes back with the server.
        let wanted = new.isRecording && source != nil && !engine.link.isLost
        let processing = VoiceProcessing(profile: new.processingProfile, mixReachesMicrophone: mixReachesMicrophone)
        guard wanted, let source else {
            if engine.uplink != nil { engine.disconnectMicrophone() }
            return
        }
        // A microphone that was refused (1033) is tried again on a new request to record, not on
        // every other session change: each try would only fail on the bus again.
        if engine.uplink == nil, Self.microphoneRefused(in: new), old?.isRecording == true { return }
        if let uplink = engine.uplink {
            if uplink.source != source {
                // Another input device: rebuild the chain on it.
                engine.disconnectMicrophone()
                _ = try openMicrophone(source, processing: processing)
            } else if uplink.voiceProcessing != processing {
                try uplink.reconfigure(processing)
            }
        } else {
            let uplink = try openMicrophone(source, processing: processing)
            try uplink.setMuted(new.isInterrupted)
        }
    }

    /// The microphone's source failed (the server refused it, it is busy or gone): its chain
    /// goes, and alarm 1033 says why; the next session change tries again.
    func microphoneFailed(_ why: String) {
        guard let uplink = engine.uplink else { return }
        engine.disconnectMicrophone()
        guard !Self.microphoneRefused(in: session.resolvedState) else { return }
        session.raiseAlarm(.recordingDeviceBusy, owner: Self.microphoneAlarmOwner,
                           message: "the microphone (\(uplink.source)) cannot be opened: \(why) — another program may hold it, or the sound server refused it",
                           context: ["source": "\(uplink.source)"])
    }

    /// A microphone that failed to open (1033) is tried again while a lease records: after 1 s, then
    /// 2, 4 … 30 s. A busy device may be freed, and a server may time out once (pipewire-pulse did,
    /// "Failed to connect stream: Timeout", as a source went away) and answer the next time.
    func retryMicrophoneIfDue() {
        let resolved = session.resolvedState
        guard resolved.isRecording, !engine.link.isLost, let source = microphoneSource(for: resolved) else {
            state.withLock { $0.microphoneRetry = nil }
            return
        }
        // The pace holds until frames flow (`microphoneOpened`): a device may open and fail just after.
        guard engine.uplink == nil, Self.microphoneRefused(in: resolved) else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard let attempt = state.withLock({ state -> Int? in
            guard let retry = state.microphoneRetry else {
                state.microphoneRetry = (attempt: 1, at: now + 1_000_000_000)
                return nil
            }
            guard now >= retry.at else { return nil }
            state.microphoneRetry = (attempt: retry.attempt + 1, at: now + UInt64(min(30, 1 << min(retry.attempt, 5))) * 1_000_000_000)
            return retry.attempt
        }) else { return }
        logger.notice("trying the microphone again", metadata: ["source": "\(source)", "attempt": "\(attempt)"])
        do {
            let uplink = try openMicrophone(source, processing: VoiceProcessing(profile: resolved.processingProfile, mixReachesMicrophone: mixReachesMicrophone))
            try uplink.setMuted(resolved.isInterrupted)
        } catch {
            logger.warning("the microphone (\(source)) still cannot be opened: \(error)")
        }
    }

    /// The microphone delivers: a 1033 raised before is over.
    func microphoneOpened() {
        state.withLock { $0.microphoneRetry = nil }
        guard Self.microphoneRefused(in: session.resolvedState) else { return }
        session.clearAlarm(.recordingDeviceBusy, owner: Self.microphoneAlarmOwner)
    }

    /// Opens the microphone chain; a device that cannot be opened (busy, refused, gone) raises
    /// alarm 1033, and the next successful open clears it.
    func openMicrophone(_ source: MicrophoneSource, processing: VoiceProcessing) throws(EngineError) -> Uplink {
        let owner = Self.microphoneAlarmOwner
        let raised = { [session] in Self.microphoneRefused(in: session.resolvedState) }
        do {
            let uplink = try engine.connectMicrophone(source, processing: processing, onFrame: onUplinkFrame)
            if raised() { queue.async { [session] in session.clearAlarm(.recordingDeviceBusy, owner: owner) } }
            return uplink
        } catch {
            // Raised from the queue, not from inside this apply: raising is itself a session change.
            if !raised() {
                queue.async { [session] in
                    session.raiseAlarm(.recordingDeviceBusy, owner: owner,
                                       message: "the microphone (\(source)) cannot be opened: \(error.description) — another program may hold it, or the sound server refused it",
                                       context: ["source": "\(source)"])
                }
            }
            throw error
        }
    }

    /// The owner of the microphone's 1033.
    static let microphoneAlarmOwner = "microphone"

    /// Whether the microphone's 1033 is raised in `resolved`.
    static func microphoneRefused(in resolved: ResolvedState) -> Bool {
        resolved.alarms.contains { $0.code == .recordingDeviceBusy && $0.owner == microphoneAlarmOwner }
    }

    func microphoneSource(for resolved: ResolvedState) -> MicrophoneSource? {
        switch microphone {
        case .fixed(let source): return source
        case .chosen(let source) where !engine.output.isSoundServer: return .device(source)
        case .route, .chosen: return resolved.route.input.map { .device($0.deviceID) }
        }
    }
}
