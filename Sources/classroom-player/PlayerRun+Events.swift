import ClassroomAudio
import ClassroomEngine
import ClassroomNetwork
import Foundation
import GStreamer

/// What the lesson and the engine report during the run.
extension PlayerRun {
    // MARK: Lesson and engine events

    func handle(_ event: LessonPlayer.Event, from lesson: LessonPlayer?) {
        commands.async { [self] in
            // A lesson replaced by `load` is stopped; what it still says is not about the lesson now.
            guard let lesson, state.withLock({ $0.lesson === lesson }) else { return }
            switch event {
            case .ended:
                let (position, duration) = state.withLock { ($0.lesson?.position?.seconds, $0.lesson?.duration?.seconds) }
                // Ending well before its declared length is a truncated or damaged file, not the end of the lesson.
                if let position, let duration, position < duration - PlayerRun.truncationTolerance {
                    lessonBroke("the lesson ended at \(String(format: "%.1f", position)) s of its \(String(format: "%.1f", duration)) s: the file is truncated or damaged")
                    return
                }
                lessonEnded(lesson, at: position)
            case .failed(let why):
                // While it loads, `startPlaying` reports the failure, classified, once.
                guard state.withLock({ $0.lessonState }) != .loading else { return }
                lessonBroke(why)
            }
        }
    }

    /// An uplink WAV that cannot be written (a full disk): said once; the class and the other
    /// destinations go on, and the exit status says it (2).
    func uplinkFailed(_ destination: UplinkDestination, _ message: String) {
        var path = destination.description
        if case .wav(let written) = destination { path = settings.files.finalPath(written) }
        let why = "the uplink WAV file \(path) could not be written: \(message)"
        state.withLock { if $0.outputFailure == nil { $0.outputFailure = why } }
        logger.error("\(why) The class goes on without it.")
        events.emit("uplink-failed", [("path", .string(path)), ("message", .string(message))])
    }

    func handle(_ event: EngineEvent) {
        switch event {
        case .level(let meterName, let rms, let peak, _):
            meter.record(meter: meterName, rms: rms)
            if meterName == EngineGraph.outputLevel {
                meter.add(rms: rms, peak: peak, seconds: controller.engine.configuration.levelInterval.seconds)
                for follower in followers { follower.outputAdvanced() }
            }
        case .error(let element, let message, _):
            events.emit("engine-error", [("element", .string(element)), ("message", .string(message))])
        case .outputLost(let why):
            guard case .wavFile(let path) = settings.output else {
                events.emit("output-lost", [("message", .string(why))])
                return
            }
            // A file that cannot be written (a full disk) is not a sound server lost: the run ends
            // with what was written kept, and says so.
            let message = "the WAV file \(settings.files.finalPath(path)) could not be written: \(why)"
            logger.error("\(message)")
            events.emit("output-failed", [("path", .string(settings.files.finalPath(path))), ("message", .string(why)),
                                          ("seconds", .number(meter.summary.seconds))])
            finish(.outputFailed(message))
        case .outputUnderrun(let buffer, let underruns):
            events.emit("output-underrun", [("buffer_ms", .number(Double(buffer.milliseconds))), ("underruns", .number(Double(underruns))),
                                            ("latency_ms", .number(Double(controller.engine.outputLatency.milliseconds)))])
        case .warning, .outputStateRequested:
            break
        }
    }
}
