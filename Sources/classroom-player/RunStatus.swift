import ClassroomAudio
import ClassroomEngine
import Foundation
import GStreamer

/// One reading of the run, taken at once: the `status` answer (and so MPRIS and the metrics) and
/// the progress line are both drawn from it, so they never disagree.
struct RunStatus {
    struct Lesson {
        let state: PlayerRun.LessonState
        let position: ClockTime?
        let duration: ClockTime?
        let uri: String
    }

    struct Sender {
        let destinations: [String]
        let frames: Int
        let dropped: Int
        let resyncs: Int
    }

    struct Microphone {
        let source: String
        let echoPath: EchoPathEstimate?
        let frames: Int
        let muted: Bool
        /// The uplink level control's gain (0 with it off).
        let gainDB: Double
    }

    struct Output {
        /// The output buffer, the output latency it gives, and the device's underruns so far.
        let buffer: ClockTime
        let latency: ClockTime
        let underruns: Int
    }

    /// Seconds since the run started.
    let elapsed: Double
    let lesson: Lesson
    let peers: JSON
    let room: JSON
    let sender: Sender?
    let resolved: ResolvedState
    let session: SessionState
    let ducks: [String]
    /// The microphone chain, while there is one.
    let microphone: Microphone?
    let output: Output
    /// The newest level of each meter, in dBFS.
    let outputDB: Double?
    let micDB: Double?
    let micCaptureDB: Double?

    /// The `status` answer's fields.
    var fields: [(String, JSON)] {
        var fields: [(String, JSON)] = [("t", .number(elapsed))]
        fields.append(("lesson", .object([("state", .string(lesson.state.rawValue)), ("position", .maybe(lesson.position?.seconds)),
                                          ("duration", .maybe(lesson.duration?.seconds)), ("uri", .string(lesson.uri))])))
        fields.append(("peers", peers))
        fields.append(("room", room))
        if let sender {
            fields.append(("uplink", .object([("destinations", .array(sender.destinations.map { .string($0) })),
                                              ("frames", .number(Double(sender.frames))), ("dropped", .number(Double(sender.dropped))),
                                              ("resyncs", .number(Double(sender.resyncs)))])))
        } else {
            fields.append(("uplink", .null))
        }
        fields.append(("session", .object([
            ("configuration", resolved.configuration.json), ("profile", .string(resolved.processingProfile.rawValue)),
            ("volume", .object([("channel", .string(resolved.volume.channel.rawValue)), ("value", .number(Double(resolved.volume.value)))])),
            ("media_volume", .number(Double(session.mediaVolume))), ("call_volume", .number(Double(session.callVolume))),
            ("ducked", .bool(resolved.ducking.isDucked)), ("ducks", .array(ducks.map { .string($0) })),
            ("route", resolved.route.json), ("override", .string(session.portOverride.rawValue)),
            ("interrupted", .bool(resolved.isInterrupted)),
        ])))
        let echoPath = microphone?.echoPath.map { estimate -> JSON in
            .object([("delay_ms", .number(Double(estimate.delay.nanoseconds) / 1e6)), ("confidence", .number(estimate.confidence))])
        }
        fields.append(("mic", .object([("connected", .bool(microphone != nil)), ("source", .maybe(microphone?.source)), ("echo_path", echoPath ?? .null),
                                       ("frames", .number(Double(microphone?.frames ?? 0))), ("muted", .bool(microphone?.muted ?? false)),
                                       ("gain_db", .maybe(microphone?.gainDB))])))
        fields.append(("output", .object([("buffer_ms", .number(Double(output.buffer.milliseconds))), ("latency_ms", .number(Double(output.latency.milliseconds))),
                                          ("underruns", .number(Double(output.underruns)))])))
        fields.append(("levels", .object([("output_db", .maybe(outputDB)), ("mic_db", .maybe(microphone == nil ? nil : micDB)),
                                          ("mic_capture_db", .maybe(microphone == nil ? nil : micCaptureDB))])))
        fields.append(("leases", .array(session.leases.map { .object([("owner", .string($0.owner)), ("need", .string($0.requirement.rawValue))]) })))
        fields.append(("alarms", .array(resolved.alarms.map { .object($0.json) })))
        return fields
    }

    /// The terminal's progress line: position, profile, volume, route, microphone, output level.
    var progressLine: String {
        func clock(_ time: ClockTime?) -> String {
            guard let seconds = time?.seconds else { return "--:--" }
            return String(format: "%02d:%04.1f", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
        }
        func level(_ db: Double?) -> String { db.map { LevelMeter.Summary.format($0) } ?? "-- dBFS" }
        let route = resolved.route.output.map { "\($0.port)" } ?? "none"
        let mic = microphone == nil ? "mic off" : "mic on \(level(micDB))"
        let ducked = resolved.ducking.isDucked ? " ducked" : ""
        return "\(lesson.state.rawValue) \(clock(lesson.position))/\(clock(lesson.duration))  \(resolved.processingProfile)  "
            + "\(resolved.volume.channel) \(Int(resolved.volume.value * 100))%\(ducked)  → \(route)  \(mic)  out \(level(outputDB))"
    }
}
