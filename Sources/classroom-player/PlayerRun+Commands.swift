import ClassroomAudio
import ClassroomEngine
import ClassroomNetwork
import Foundation
import GStreamer

/// The command executor: each verb to what handles it (`SessionCommands` for the session, the
/// lesson and the peers here), and its answer.
/// Runs on the run's command queue (timeline steps, control lines, MPRIS all come through `perform`).
extension PlayerRun {
    // MARK: Commands

    /// Does one command; runs on the command queue. Returns the answer's fields.
    func execute(_ command: Command, from origin: String) throws(CommandError) -> [(String, JSON)] {
        switch command {
        case .mic(let on):
            return try sessionCommands.mic(on)
        case .duck(let on, let owner):
            return try sessionCommands.duck(on, owner: owner)
        case .volume(let channel, let value):
            return try sessionCommands.volume(channel, value)
        case .pause, .resume:
            let lesson = try currentLesson()
            do {
                if command == .pause { try lesson.pause() } else { try lesson.play() }
            } catch {
                throw CommandError(.failed, error.description)
            }
            let now: LessonState = command == .pause ? .paused : .playing
            state.withLock { $0.lessonState = now }
            events.emit(command == .pause ? "lesson-paused" : "lesson-resumed", [("position", .maybe(lesson.position?.seconds)), ("by", .string(origin))])
            return [("lesson", .string(now.rawValue)), ("position", .maybe(lesson.position?.seconds))]
        case .seek(let position):
            let lesson = try currentLesson(allowEnded: true)
            if let duration = lesson.duration, position > duration.seconds {
                throw CommandError(.badValue, "the lesson is \(String(format: "%.1f", duration.seconds)) s long; seek to at most that")
            }
            do {
                try lesson.seek(to: .seconds(position))
            } catch {
                throw CommandError(.failed, error.description)
            }
            // Seeking an ended lesson plays it again from there.
            state.withLock { if $0.lessonState == .ended { $0.lessonState = lesson.isPlaying ? .playing : .paused } }
            events.emit("lesson-seeked", [("position", .number(position)), ("by", .string(origin))])
            return [("position", .maybe(lesson.position?.seconds))]
        case .load(let argument):
            return try load(argument, from: origin, onQueue: true)
        case .route(let override):
            return try sessionCommands.route(override)
        case .lease(let owner, let need):
            return try sessionCommands.lease(owner: owner, need: need)
        case .release(let owner):
            return try sessionCommands.release(owner: owner)
        case .track(let choice):
            let lesson = try currentLesson(allowEnded: true)
            let languages = lesson.audioTracks
            guard let index = AudioTrackChoice.index(choice, in: languages) else {
                throw CommandError(.badValue, "the lesson has no audio track \"\(choice)\"; its tracks are \(AudioTrackChoice.listing(languages))")
            }
            do {
                try lesson.selectAudioTrack(index)
            } catch {
                throw CommandError(.failed, error.description)
            }
            events.emit("lesson-track", [("audio", .number(Double(index))), ("language", .maybe(languages[index])), ("by", .string(origin))])
            return [("audio", .number(Double(index))), ("language", .maybe(languages[index]))]
        case .rate(let value):
            let lesson = try currentLesson()
            do {
                try lesson.setRate(value)
            } catch {
                throw CommandError(.failed, error.description)
            }
            events.emit("lesson-rate", [("rate", .number(value)), ("position", .maybe(lesson.position?.seconds)), ("by", .string(origin))])
            return [("rate", .number(value)), ("position", .maybe(lesson.position?.seconds))]
        case .peer(let add, let id, let remove):
            if let remove { return try peers.remove(id: remove, by: origin) }
            if let id, !PeerArgument.isValidID(id) {
                throw CommandError(.badValue, "\"id\" of \"peer\" is 1 to 32 letters, digits, '-' or '_', not \"\(id)\"")
            }
            let source: PeerSource
            do {
                source = try PeerArgument.resolve(add ?? "")
            } catch {
                throw CommandError(.badValue, error.description)
            }
            let added = try peers.add(id: id, source: source, by: origin)
            return [("id", .string(added)), ("source", .string(source.description))]
        case .stop:
            events.emit("stop-requested", [("by", .string(origin))])
            finish(.stopCommand(origin))
            return [("stopping", .bool(true))]
        case .status:
            return status()
        }
    }

    // MARK: Loading a lesson

    /// `load`: the new lesson is opened and prerolled while the one playing goes on, and replaces
    /// it only then; one that cannot play is refused with why and changes nothing. From `perform`
    /// (`onQueue` false) the opening runs off the command queue, so status, MPRIS, the metrics and
    /// a stop go on meanwhile; from the timeline, on it (bounded by `LessonPlayer.openTimeout`).
    func load(_ argument: String, from origin: String, onQueue: Bool) throws(CommandError) -> [(String, JSON)] {
        let lesson = onQueue ? try prepareLesson(argument) : try serially { () throws(CommandError) in try prepareLesson(argument) }
        do {
            try lesson.preroll()
        } catch {
            lesson.stop()
            throw CommandError(.failed, "\(error.description) The lesson playing now goes on.")
        }
        if onQueue { return try adopt(lesson, by: origin) }
        do {
            return try serially { () throws(CommandError) in try adopt(lesson, by: origin) }
        } catch {
            lesson.stop()   // the player is stopping: the new lesson never played
            throw error
        }
    }

    /// The lesson `argument` names, built but not playing; refuses what is not a regular file or a scheme the player opens.
    private func prepareLesson(_ argument: String) throws(CommandError) -> LessonPlayer {
        let uri: String
        do {
            // A typo, a FIFO or smb:// must not stop the lesson playing now.
            uri = try MediaLocation.uri(for: argument, role: "lesson", schemes: MediaLocation.lessonSchemes)
        } catch {
            throw CommandError(.badValue, error.description + " The lesson playing now goes on.")
        }
        do {
            return try controller.makeLesson(uri: uri, video: settings.video)
        } catch {
            throw CommandError(.failed, "\(error.description) The lesson playing now goes on.")
        }
    }

    /// The prerolled `lesson` replaces the one playing. Runs on the command queue.
    private func adopt(_ lesson: LessonPlayer, by origin: String) throws(CommandError) -> [(String, JSON)] {
        let uri = lesson.uri
        controller.adoptLesson(lesson)   // stops the previous one
        do {
            try lesson.play()
        } catch {
            // Prerolled, yet it would not play: as a lesson that fails while playing, it ends the
            // class unless something live goes on.
            state.withLock { $0.lesson = lesson; $0.lessonURI = uri; $0.lessonState = .playing; $0.lessonFailure = nil }
            lessonBroke(error.description)
            throw CommandError(.failed, "\(error.description)" + (classIsLive ? " The class goes on without a lesson." : " The player stops (exit 2)."))
        }
        let lessonToken = lesson.observe { [weak self, weak lesson] event in self?.handle(event, from: lesson) }
        // The new lesson is what the run's status reports on now.
        state.withLock { $0.lesson = lesson; $0.lessonURI = uri; $0.lessonState = .playing; $0.lessonFailure = nil; $0.tokens.append(lessonToken) }
        events.emit("lesson-loaded", [("lesson", .string(uri)), ("duration", .maybe(lesson.duration?.seconds)), ("by", .string(origin))])
        return [("lesson", .string(uri)), ("duration", .maybe(lesson.duration?.seconds))]
    }

    /// Runs `body` on the command queue, unless the player is stopping.
    func serially<T>(_ body: () throws(CommandError) -> T) throws(CommandError) -> T {
        try commands.sync { () -> Result<T, CommandError> in
            guard !isEnding else { return .failure(CommandError(.unavailable, "the player is stopping")) }
            return Result { () throws(CommandError) in try body() }
        }.get()
    }

    func currentLesson(allowEnded: Bool = false) throws(CommandError) -> LessonPlayer {
        let (lesson, lessonState) = state.withLock { ($0.lesson, $0.lessonState) }
        guard let lesson, lessonState != .failed else { throw CommandError(.unavailable, "there is no lesson playing") }
        if lessonState == .ended, !allowEnded {
            throw CommandError(.unavailable, "the lesson has ended; seek to play it again")
        }
        return lesson
    }
}
