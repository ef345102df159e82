import ClassroomAudio
import ClassroomEngine
import Foundation
import GStreamer

/// The status report (the `status` verb, MPRIS and the metrics read it) and the progress line.
extension PlayerRun {
    // MARK: Status and progress

    func status() -> [(String, JSON)] {
        let (lesson, lessonState, ducks, lessonURI) = state.withLock { ($0.lesson, $0.lessonState, $0.ducks, $0.lessonURI) }
        let resolved = controller.session.resolvedState
        let sessionState = controller.session.state
        let uplink = controller.engine.uplink
        var fields: [(String, JSON)] = [("t", .number(events.elapsed))]
        fields.append(("lesson", .object([("state", .string(lessonState.rawValue)), ("position", .maybe(lesson?.position?.seconds)),
                                          ("duration", .maybe(lesson?.duration?.seconds)), ("uri", .string(lessonURI))])))
        fields.append(("peers", peers.status))
        fields.append(("room", room?.status ?? .null))
        if let sender = self.uplink {
            fields.append(("uplink", .object([("destinations", .array(sender.destinations.map { .string($0.description) })),
                                              ("frames", .number(Double(sender.framesSent))), ("dropped", .number(Double(sender.framesDropped))),
                                              ("resyncs", .number(Double(sender.resyncs)))])))
        } else {
            fields.append(("uplink", .null))
        }
        fields.append(("session", .object([
            ("configuration", resolved.configuration.json), ("profile", .string(resolved.processingProfile.rawValue)),
            ("volume", .object([("channel", .string(resolved.volume.channel.rawValue)), ("value", .number(Double(resolved.volume.value)))])),
            ("media_volume", .number(Double(sessionState.mediaVolume))), ("call_volume", .number(Double(sessionState.callVolume))),
            ("ducked", .bool(resolved.ducking.isDucked)), ("ducks", .array(ducks.keys.sorted().map { .string($0) })),
            ("route", resolved.route.json), ("override", .string(sessionState.portOverride.rawValue)),
            ("interrupted", .bool(resolved.isInterrupted)),
        ])))
        let echoPath = controller.engine.echoPath.map { estimate -> JSON in
            .object([("delay_ms", .number(Double(estimate.delay.nanoseconds) / 1e6)), ("confidence", .number(estimate.confidence))])
        }
        fields.append(("mic", .object([("connected", .bool(uplink != nil)), ("source", .maybe(uplink?.source.description)), ("echo_path", echoPath ?? .null),
                                       ("frames", .number(Double(uplink?.framesDelivered ?? 0))), ("muted", .bool(uplink?.isMuted ?? false))])))
        fields.append(("levels", .object([("output_db", .maybe(meter.latest(EngineGraph.outputLevel))), ("mic_db", .maybe(uplink == nil ? nil : meter.latest(EngineGraph.micLevel))),
                                          ("mic_capture_db", .maybe(uplink == nil ? nil : meter.latest(EngineGraph.micCaptureLevel)))])))
        fields.append(("leases", .array(sessionState.leases.map { .object([("owner", .string($0.owner)), ("need", .string($0.requirement.rawValue))]) })))
        fields.append(("alarms", .array(resolved.alarms.map { .object($0.json) })))
        return fields
    }

    func startProgress() {
        let timer = DispatchSourceToken.repeating(every: .milliseconds(500), after: .milliseconds(200), on: .global(qos: .utility)) { [weak self] in
            self?.drawProgress()
        }
        state.withLock { $0.timers.append(timer) }
    }

    func drawProgress() {
        let (lesson, lessonState) = state.withLock { ($0.lesson, $0.lessonState) }
        let resolved = controller.session.resolvedState
        let uplink = controller.engine.uplink
        func clock(_ time: ClockTime?) -> String {
            guard let seconds = time?.seconds else { return "--:--" }
            return String(format: "%02d:%04.1f", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
        }
        func level(_ db: Double?) -> String { db.map { LevelMeter.Summary.format($0) } ?? "--" }
        let route = resolved.route.output.map { "\($0.port)" } ?? "none"
        let mic = uplink == nil ? "mic off" : "mic on \(level(meter.latest(EngineGraph.micLevel))) dB"
        let ducked = resolved.ducking.isDucked ? " ducked" : ""
        console.progress("\(lessonState.rawValue) \(clock(lesson?.position))/\(clock(lesson?.duration))  \(resolved.processingProfile)  "
                         + "\(resolved.volume.channel) \(Int(resolved.volume.value * 100))%\(ducked)  → \(route)  \(mic)  out \(level(meter.latest(EngineGraph.outputLevel))) dB")
    }
}
