import ClassroomEngine
import Foundation

/// What a run does on its own, as a service in class does: the microphone at start, and what
/// follows the lesson's end. Runs on the command queue.
extension PlayerRun {
    /// `--mic-on`: connects the microphone as a first `mic` command would. A microphone that
    /// cannot be opened now does not end the class: it is said, and `mic` can connect it later.
    func connectMicrophoneAtStart() {
        do {
            _ = try execute(.mic(on: true), from: "command line")
        } catch {
            logger.warning("the microphone is off: \(error.message)")
            events.emit("microphone-failed", [("message", .string(error.message)), ("by", .string("--mic-on"))])
        }
    }

    /// The lesson played to its end: the run ends, stays in class, or plays the lesson again.
    func lessonEnded(_ lesson: LessonPlayer, at position: Double?) {
        state.withLock { $0.lessonState = .ended }
        events.emit("lesson-ended", [("position", .maybe(position))])
        guard settings.afterLesson == .loop else {
            checkCompletion()
            return
        }
        do {
            try lesson.seek(to: .zero)
            let count = state.withLock { state -> Int in
                state.lessonState = lesson.isPlaying ? .playing : .paused
                state.loops += 1
                return state.loops
            }
            events.emit("lesson-looped", [("count", .number(Double(count)))])
        } catch {
            lessonBroke("the lesson could not be played again from its start: \(error.description)")
        }
    }
}
