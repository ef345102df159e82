import ClassroomAudio

/// What a room that refuses this kiosk does to the run: the class it is part of goes on.
extension PlayerRun {
    /// The alarm's owner for a refused room.
    static let roomAlarmOwner = "room"

    /// Whether the room is part of the class still: there is one, and it has not refused us.
    func roomGoesOn(_ state: State) -> Bool { room != nil && state.roomRefusal == nil }

    /// The room refused this kiosk as configured (a wrong token or pin, no such room, a certificate
    /// that fails): an alarm, and the class goes on while the lesson or a live feed plays; the end
    /// of the run (exit 1) only when nothing else plays. A server that answers badly is not this:
    /// it is retried like a lost one. Runs on the command queue.
    func roomRefused(_ error: PlayerError) {
        let why = error.description
        let lessonPlays = state.withLock { state -> Bool in
            state.roomRefusal = why
            return [.loading, .playing, .paused].contains(state.lessonState)
        }
        guard lessonPlays || !peers.ids.isEmpty else {
            finish(.cannotUse(why))
            return
        }
        controller.session.raiseAlarm(.roomRefused, owner: Self.roomAlarmOwner, message: why)
        logger.error("\(why) The class goes on without the room.")
        checkCompletion()
    }
}
