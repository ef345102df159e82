extension AudioSession {
    /// The media volume, 0…1.
    public var mediaVolume: Float {
        state.mediaVolume
    }

    /// The call volume, floor…1.
    public var callVolume: Float {
        state.callVolume
    }

    /// Sets the user volume of one channel; a call volume below the floor is raised to the floor.
    ///
    /// - Returns: the volume as stored.
    /// - Throws: ``AudioSessionError/badParam(reason:)`` outside 0…1.
    @discardableResult
    public func setVolume(_ volume: Float, for channel: VolumeChannel) throws(AudioSessionError) -> Float {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw .badParam(reason: "\(channel) volume \(volume) is outside 0…1")
        }
        return mutate { state, _, _ in
            switch channel {
            case .media:
                state.mediaVolume = volume
            case .call:
                state.callVolume = max(volume, state.settings.callVolumeFloor)
            }
            return state.volume(of: channel)
        }
    }

    /// Changes the active channel's volume by a step, for the kiosk volume keys; the result stays
    /// within 0…1 for media and floor…1 for call.
    ///
    /// - Returns: the active volume afterwards.
    /// - Throws: ``AudioSessionError/badParam(reason:)`` for a step that is not a number.
    @discardableResult
    public func adjustActiveVolume(by step: Float) throws(AudioSessionError) -> ActiveVolume {
        guard step.isFinite else {
            throw .badParam(reason: "volume step \(step) is not a number")
        }
        return mutate { state, before, _ in
            let channel = before.volume.channel
            switch channel {
            case .media:
                state.mediaVolume = min(max(state.mediaVolume + step, 0), 1)
            case .call:
                state.callVolume = min(max(state.callVolume + step, state.settings.callVolumeFloor), 1)
            }
            return ActiveVolume(channel: channel, value: state.volume(of: channel))
        }
    }

    /// Asks for ducking: the ducked inputs play at the ducking factor while any request is live.
    ///
    /// The factor is applied once however many requests there are, and never changes the user volumes.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` for an empty owner.
    public func duck(owner: String, fileID: String = #fileID, line: Int = #line) throws(AudioSessionError) -> DuckToken {
        guard !owner.allSatisfy(\.isWhitespace) else {
            throw .badParam(reason: "a ducking request needs the owning module's name, for attribution")
        }
        let token = mutate { state, _, _ in
            let token = DuckToken(sessionID: state.sessionID, serial: state.issueSerial(), owner: owner)
            state.ducks.append(token)
            return token
        }
        logger.debug("ducking requested", metadata: ["duck": "\(token)", "callSite": "\(fileID):\(line)"])
        return token
    }

    /// Releases a ducking request; ducking lifts when the last one is released, in any order.
    ///
    /// Releasing twice is harmless.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` for a token of another session, or one
    ///   this session revoked.
    public func releaseDuck(_ token: DuckToken) throws(AudioSessionError) {
        try mutate { state, _, _ throws(AudioSessionError) in
            try state.validateToken(sessionID: token.sessionID, serial: token.serial, describedAs: "\(token)")
            state.ducks.removeAll { $0.serial == token.serial }
        }
    }
}
