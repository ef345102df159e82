extension AudioSession {
    /// Raises an alarm, or updates the one with the same code and owner; it stays in
    /// ``ResolvedState/alarms`` until cleared.
    ///
    /// The engine uses this for the alarms it detects in the graph (levels, busy devices,
    /// suppressed media).
    public func raiseAlarm(
        _ code: AlarmCode, owner: String, message: String, context: [String: String] = [:],
        fileID: String = #fileID, line: Int = #line
    ) {
        let alarm = Alarm(
            code: code, owner: owner, callSite: CallSite(fileID: fileID, line: line), message: message, context: context)
        mutate { state, _, _ in
            if let index = state.raisedAlarms.firstIndex(where: { $0.code == code && $0.owner == owner }) {
                state.raisedAlarms[index] = alarm
            } else {
                state.raisedAlarms.append(alarm)
            }
        }
        logger.error("alarm raised", metadata: ["alarm": "\(alarm)"])
    }

    /// Clears a raised alarm.
    ///
    /// - Returns: false when no such alarm was raised.
    @discardableResult
    public func clearAlarm(_ code: AlarmCode, owner: String) -> Bool {
        let cleared = mutate { state, _, _ in
            let count = state.raisedAlarms.count
            state.raisedAlarms.removeAll { $0.code == code && $0.owner == owner }
            return state.raisedAlarms.count != count
        }
        if cleared {
            logger.notice("alarm cleared", metadata: ["code": "\(code)", "owner": "\(owner)"])
        }
        return cleared
    }
}
