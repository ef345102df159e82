import ClassroomAudio

extension SessionEvent {
    /// The event's name and fields as written to the event log.
    var logEntry: (name: String, fields: [(String, JSON)]) {
        switch self {
        case .configurationChanged(let old, let new, let reason):
            return ("configuration-changed", [("configuration", new.json), ("previous", old.json), ("reason", .string(reason.text))])
        case .correctedByPolicy(let correction):
            return ("policy-corrected", [("owner", .string(correction.owner)), ("requested", correction.requested.json),
                                         ("corrected", correction.corrected.json), ("summary", .string(correction.summary))])
        case .routeChanged(let reason, let previous, let current):
            return ("route-changed", [("reason", .string(reason.rawValue)), ("route", current.json), ("previous", previous.json)])
        case .deviceChoiceEnded(let device, let direction):
            return ("device-choice-ended", [("device", .string(device)), ("direction", .string(direction.rawValue)),
                                            ("reason", .string("the \(direction) device the user named went away; the route's own choice applies"))])
        case .activationChanged(let isActive):
            return ("activation-changed", [("active", .bool(isActive))])
        case .interruptionBegan(let source):
            return ("interruption-began", [("source", .string(source.rawValue))])
        case .interruptionEnded(let source, let shouldResume):
            return ("interruption-ended", [("source", .string(source.rawValue)), ("should_resume", .bool(shouldResume))])
        case .lessonPauseRequested(let reason):
            let text: String
            switch reason {
            case .interruption(let source): text = "interruption: \(source.rawValue)"
            case .headphonesUnplugged(let port): text = "headphones unplugged: \(port.rawValue)"
            }
            return ("lesson-pause-requested", [("reason", .string(text))])
        case .volumeChanged(let volume):
            return ("volume-changed", [("channel", .string(volume.channel.rawValue)), ("value", .number(Double(volume.value)))])
        case .duckingChanged(let ducking):
            return ("ducking-changed", [("ducked", .bool(ducking.isDucked)), ("factor", .number(Double(ducking.factor)))])
        case .alarm(let alarm):
            return ("alarm", alarm.json)
        case .alarmCleared(let alarm):
            return ("alarm-cleared", [("code", .string(alarm.code.rawValue)), ("number", .maybe(alarm.code.number.map(Double.init))),
                                      ("owner", .string(alarm.owner))])
        case .mediaServicesWereLost:
            return ("media-services-lost", [])
        case .mediaServicesWereReset:
            return ("media-services-reset", [])
        }
    }
}

extension Alarm {
    /// The alarm's fields.
    var json: [(String, JSON)] {
        [("code", .string(code.rawValue)), ("number", .maybe(code.number.map(Double.init))), ("owner", .string(owner)),
         ("message", .string(message)), ("call_site", .string(callSite.description)),
         ("context", .object(context.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))]
    }
}

extension AudioConfiguration {
    /// {"category", "mode", "options"}.
    var json: JSON {
        let names = options.description == "none" ? [] : options.description.components(separatedBy: ", ")
        return .object([("category", .string(category.rawValue)), ("mode", .string(mode.rawValue)), ("options", .array(names.map { .string($0) }))])
    }
}

extension AudioRoute {
    /// {"output": {"port", "device"} | null, "input": … }.
    var json: JSON {
        func end(_ port: RoutePort?) -> JSON {
            port.map { .object([("port", .string($0.port.rawValue)), ("device", .string($0.deviceID)), ("name", .string($0.name))]) } ?? .null
        }
        return .object([("output", end(output)), ("input", end(input))])
    }
}

extension ConfigurationChangeReason {
    /// "lease acquired: lease #2 (mic-connect, voiceCall)".
    var text: String {
        switch self {
        case .leaseAcquired(let token): return "lease acquired: \(token)"
        case .leaseReleased(let token): return "lease released: \(token)"
        case .leasesRevoked(let owner): return "leases revoked: \(owner)"
        case .categoryRequested(let owner, let callSite): return "category requested by \(owner) at \(callSite)"
        }
    }
}
