import ClassroomAudio

/// One thing the player is asked to do, by a timeline step or a control line.
enum Command: Sendable, Equatable {
    case mic(on: Bool)
    case duck(on: Bool, owner: String)
    case volume(channel: VolumeChannel, value: Float)
    case pause
    case resume
    case seek(position: Double)
    /// Replace the lesson with another (a path or a URI), played from its start.
    case load(lesson: String)
    case route(override: PortOverride)
    case lease(owner: String, need: AudioRequirement)
    case release(owner: String)
    /// Hear another audio track of the lesson: by number (0-based) or language code.
    case track(audio: String)
    /// Play the lesson at another rate, pitch kept.
    case rate(value: Double)
    /// Add a peer from a feed (with an id, or the next live-N), or remove one.
    case peer(add: String?, id: String?, remove: String?)
    case stop
    /// Control only: the answer carries the player's state.
    case status

    /// The verb, as written in `do`.
    var verb: String {
        switch self {
        case .mic: return "mic"
        case .duck: return "duck"
        case .volume: return "volume"
        case .pause: return "pause"
        case .resume: return "resume"
        case .seek: return "seek"
        case .load: return "load"
        case .route: return "route"
        case .lease: return "lease"
        case .release: return "release"
        case .track: return "track"
        case .rate: return "rate"
        case .peer: return "peer"
        case .stop: return "stop"
        case .status: return "status"
        }
    }

    /// The owner of ducks asked for without one: what the CLI stands in for.
    static let defaultDuckOwner = "effects"

    /// A verb's fields and what it does: the one table the parser and the help text read.
    struct Verb: Sendable {
        let name: String
        let fields: [Field]
        let summary: String
        let timeline: Bool
    }

    /// One field of a verb.
    struct Field: Sendable {
        let name: String
        let type: String
        let required: Bool
    }

    static let verbs: [Verb] = [
        Verb(name: "mic", fields: [Field(name: "on", type: "true|false", required: true)],
             summary: "connect (voiceCall lease: voice processing, call volume) or disconnect the microphone", timeline: true),
        Verb(name: "duck", fields: [Field(name: "on", type: "true|false", required: true), Field(name: "owner", type: "NAME", required: false)],
             summary: "duck the courseware by the session's factor (-20 dB) for an effect, or release it; owner defaults to \"effects\"", timeline: true),
        Verb(name: "volume", fields: [Field(name: "channel", type: "\"media\"|\"call\"", required: true), Field(name: "value", type: "0...1", required: true)],
             summary: "set a user volume channel (call is kept at or above its floor, 0.1)", timeline: true),
        Verb(name: "pause", fields: [], summary: "pause the lesson (RTC and the microphone keep running)", timeline: true),
        Verb(name: "resume", fields: [], summary: "resume the lesson", timeline: true),
        Verb(name: "seek", fields: [Field(name: "position", type: "SECONDS", required: true)], summary: "seek the lesson", timeline: true),
        Verb(name: "load", fields: [Field(name: "lesson", type: "PATH|URI", required: true)],
             summary: "replace the lesson with another, played from its start (--after-lesson then applies to that one)", timeline: true),
        Verb(name: "route", fields: [Field(name: "override", type: "\"speaker\"|\"none\"", required: true)],
             summary: "force the built-in speaker until the next route change, or remove the override", timeline: true),
        Verb(name: "lease", fields: [Field(name: "owner", type: "NAME", required: true),
                                     Field(name: "need", type: AudioRequirement.allCases.map(\.rawValue).joined(separator: "|"), required: true)],
             summary: "take a session lease for a module (record, playback, voiceCall …)", timeline: true),
        Verb(name: "release", fields: [Field(name: "owner", type: "NAME", required: true)], summary: "release every lease the owner holds", timeline: true),
        Verb(name: "track", fields: [Field(name: "audio", type: "N|LANG", required: true)],
             summary: "hear another audio track of the lesson (a bilingual lesson): its number from 0, or its language code as probe lists it", timeline: true),
        Verb(name: "rate", fields: [Field(name: "value", type: "0.5...2", required: true)],
             summary: "play the lesson at this rate, pitch kept (RTC and the microphone are unaffected)", timeline: true),
        Verb(name: "peer", fields: [Field(name: "add", type: "FEED", required: false), Field(name: "id", type: "ID", required: false),
                                    Field(name: "remove", type: "ID", required: false)],
             summary: "add a peer from a feed (a file, rtp://HOST:PORT[?pt=N], an SDP file, rtsp/srt/http URI) with an id (default live-N), or remove one by id",
             timeline: true),
        Verb(name: "stop", fields: [], summary: "stop cleanly (a WAV output is finalised) and exit 0", timeline: true),
        Verb(name: "status", fields: [], summary: "answer with the lesson, live feed, session, microphone, levels, leases and alarms", timeline: false),
    ]

    /// Parses one request object. `extra` are the context's own fields ("at" in a timeline, "id"
    /// on a control line), already consumed by the caller; every other unknown field is an error.
    static func parse(_ object: JSON, extra: Set<String>, inTimeline: Bool) throws(CommandError) -> Command {
        guard case .object = object else {
            throw CommandError(.badRequest, "expected a JSON object such as {\"do\":\"status\"}, got \(object.typeName)")
        }
        guard let verbValue = object["do"] else {
            throw CommandError(.missingField, "every request needs \"do\": one of \(names(inTimeline: inTimeline))")
        }
        guard case .string(let name) = verbValue else {
            throw CommandError(.badValue, "\"do\" must be a string naming a verb (\(names(inTimeline: inTimeline))), got \(verbValue.typeName)")
        }
        guard let verb = verbs.first(where: { $0.name == name }), verb.timeline || !inTimeline else {
            let hint = name == "status" ? " (status is for control lines; a timeline cannot use it)" : ""
            throw CommandError(.unknownVerb, "unknown verb \"\(name)\"\(hint); use one of \(names(inTimeline: inTimeline))")
        }
        let allowed = Set(verb.fields.map(\.name)).union(extra).union(["do"])
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            let takes = verb.fields.isEmpty ? "takes no fields" : "takes \(verb.fields.map { "\"\($0.name)\"" }.joined(separator: ", "))"
            throw CommandError(.unknownField, "\"\(name)\" \(takes); \"\(unknown)\" is not one of them")
        }
        for field in verb.fields where field.required && object[field.name] == nil {
            throw CommandError(.missingField, "\"\(name)\" needs \"\(field.name)\": \(field.type)")
        }
        let fields = Fields(verb: name, object: object)
        switch name {
        case "mic": return .mic(on: try fields.bool("on"))
        case "duck": return .duck(on: try fields.bool("on"), owner: try fields.owner("owner") ?? defaultDuckOwner)
        case "volume":
            let channelName = try fields.string("channel")
            guard let channel = VolumeChannel(rawValue: channelName) else {
                throw CommandError(.badValue, "\"channel\" is \"media\" or \"call\", not \"\(channelName)\"")
            }
            let value = try fields.number("value")
            guard (0...1).contains(value) else {
                throw CommandError(.badValue, "\"value\" is a volume from 0 to 1, not \(value)")
            }
            return .volume(channel: channel, value: Float(value))
        case "pause": return .pause
        case "resume": return .resume
        case "seek":
            let position = try fields.number("position")
            guard (0...Timeline.latestStep).contains(position) else {
                throw CommandError(.badValue, "\"position\" is seconds from the lesson's start, from 0 to \(Int(Timeline.latestStep)), not \(position)")
            }
            return .seek(position: position)
        case "route":
            let value = try fields.string("override")
            guard let override = PortOverride(rawValue: value) else {
                throw CommandError(.badValue, "\"override\" is \"speaker\" or \"none\", not \"\(value)\"")
            }
            return .route(override: override)
        case "lease":
            let owner = try fields.owner("owner") ?? ""
            let needName = try fields.string("need")
            guard let need = AudioRequirement(rawValue: needName) else {
                throw CommandError(.badValue, "\"need\" is one of \(AudioRequirement.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(needName)\"")
            }
            return .lease(owner: owner, need: need)
        case "release": return .release(owner: try fields.owner("owner") ?? "")
        case "track":
            switch object["audio"] {
            case .number(let number)?:
                guard number >= 0, number < 64, number == number.rounded() else {
                    throw CommandError(.badValue, "\"audio\" of \"track\" is a track number from 0 or a language code, not \(number)")
                }
                return .track(audio: String(Int(number)))
            case .string(let language)? where !language.isEmpty && language.count <= 16:
                return .track(audio: language)
            default:
                throw CommandError(.badValue, "\"audio\" of \"track\" is a track number from 0 or a language code such as \"fr\", not \(object["audio"]?.serialized ?? "missing")")
            }
        case "rate":
            let value = try fields.number("value")
            guard (LessonRate.slowest...LessonRate.fastest).contains(value) else {
                throw CommandError(.badValue, "\"value\" of \"rate\" is from \(LessonRate.slowest) to \(LessonRate.fastest), not \(value)")
            }
            return .rate(value: value)
        case "peer":
            let add = object["add"] == nil ? nil : try fields.string("add")
            let remove = object["remove"] == nil ? nil : try fields.string("remove")
            let id = object["id"] == nil ? nil : try fields.string("id")
            switch (add, remove) {
            case (nil, nil): throw CommandError(.missingField, "\"peer\" needs \"add\": FEED (with an optional \"id\") or \"remove\": ID")
            case (.some, .some): throw CommandError(.badValue, "\"peer\" takes \"add\" or \"remove\", not both")
            case (nil, .some) where id != nil: throw CommandError(.badValue, "\"peer\" takes \"id\" only with \"add\"; \"remove\" names the peer")
            default: break
            }
            if let feed = add, feed.isEmpty { throw CommandError(.badValue, "\"add\" of \"peer\" names a feed, e.g. rtp://0.0.0.0:5006") }
            return .peer(add: add, id: id, remove: remove)
        case "load":
            let lesson = try fields.string("lesson")
            guard !lesson.isEmpty else { throw CommandError(.badValue, "\"lesson\" of \"load\" is a path or a URI, e.g. /srv/lessons/next.webm") }
            return .load(lesson: lesson)
        case "stop": return .stop
        default: return .status
        }
    }

    private static func names(inTimeline: Bool) -> String {
        verbs.filter { $0.timeline || !inTimeline }.map(\.name).joined(separator: ", ")
    }

    /// Typed access to a request's fields, with messages naming the verb and field.
    private struct Fields {
        let verb: String
        let object: JSON

        func bool(_ name: String) throws(CommandError) -> Bool {
            guard case .bool(let value)? = object[name] else {
                throw CommandError(.badValue, "\"\(name)\" of \"\(verb)\" is true or false, not \(object[name]?.serialized ?? "missing")")
            }
            return value
        }

        func number(_ name: String) throws(CommandError) -> Double {
            guard case .number(let value)? = object[name], value.isFinite else {
                throw CommandError(.badValue, "\"\(name)\" of \"\(verb)\" is a number, not \(object[name]?.serialized ?? "missing")")
            }
            return value
        }

        func string(_ name: String) throws(CommandError) -> String {
            guard case .string(let value)? = object[name] else {
                throw CommandError(.badValue, "\"\(name)\" of \"\(verb)\" is a string, not \(object[name]?.serialized ?? "missing")")
            }
            return value
        }

        /// A module name: non-empty, printable; nil when absent.
        func owner(_ name: String) throws(CommandError) -> String? {
            guard object[name] != nil else { return nil }
            let value = try string(name)
            guard !value.allSatisfy(\.isWhitespace), value.count <= 64 else {
                throw CommandError(.badValue, "\"\(name)\" of \"\(verb)\" names a module: 1 to 64 characters, not all spaces")
            }
            return value
        }
    }
}
