import ClassroomAudio
import ClassroomEngine
import Foundation
import Synchronization

/// The verbs that change the session — microphone, ducks, volumes, the route override, leases —
/// and their answers. It owns the ducks and leases taken through commands, so only it gives them
/// back. Runs on the run's command queue.
final class SessionCommands: Sendable {
    private struct Held {
        var ducks: [String: DuckToken] = [:]
        var leases: [String: [LeaseToken]] = [:]
    }

    private let controller: SessionController
    private let events: EventLog
    private let meter: LevelMeter
    private let room: RoomPresence?
    /// False with `--mic none`: `mic` and recording leases are refused.
    private let microphoneAllowed: Bool
    private let held = Mutex(Held())

    init(controller: SessionController, events: EventLog, meter: LevelMeter, room: RoomPresence?, microphoneAllowed: Bool) {
        self.controller = controller
        self.events = events
        self.meter = meter
        self.room = room
        self.microphoneAllowed = microphoneAllowed
    }

    /// The owners of the ducks held, sorted.
    var duckOwners: [String] { held.withLock { $0.ducks.keys.sorted() } }

    func mic(_ on: Bool) throws(CommandError) -> [(String, JSON)] {
        let session = controller.session
        try requireMicrophone("connect the microphone")
        if on {
            try refusedBySession { () throws(AudioSessionError) in try controller.connectMicrophone() }
            guard let uplink = controller.engine.uplink else {
                try? controller.disconnectMicrophone()
                throw CommandError(.unavailable, "no microphone could be opened: the route has no input device"
                                   + " (\(session.currentRoute)); plug one in, or start with --mic FILE or --mic DEVICE")
            }
            events.emit("microphone", [("connected", .bool(true)), ("source", .string(uplink.source.description)),
                                       ("profile", .string(session.resolvedState.processingProfile.rawValue))])
        } else {
            let frames = controller.engine.uplink?.framesDelivered
            try refusedBySession { () throws(AudioSessionError) in try controller.disconnectMicrophone() }
            meter.forget(EngineGraph.micLevel)
            meter.forget(EngineGraph.micCaptureLevel)
            if let frames { events.emit("microphone", [("connected", .bool(false)), ("frames", .number(Double(frames)))]) }
        }
        room?.followSession()
        return [("mic", .bool(controller.isMicrophoneConnected)), ("profile", .string(session.resolvedState.processingProfile.rawValue))]
    }

    func duck(_ on: Bool, owner: String) throws(CommandError) -> [(String, JSON)] {
        let session = controller.session
        if on {
            if held.withLock({ $0.ducks[owner] }) == nil {
                let token = try refusedBySession { () throws(AudioSessionError) in try session.duck(owner: owner) }
                held.withLock { $0.ducks[owner] = token }
            }
        } else {
            guard let token = held.withLock({ $0.ducks.removeValue(forKey: owner) }) else {
                let holders = held.withLock { $0.ducks.keys.sorted() }
                throw CommandError(.unavailable, "no duck is held by \"\(owner)\"" + (holders.isEmpty ? "" : " (held by: \(holders.joined(separator: ", ")))"))
            }
            try refusedBySession { () throws(AudioSessionError) in try session.releaseDuck(token) }
        }
        return [("owner", .string(owner)), ("ducked", .bool(session.resolvedState.ducking.isDucked))]
    }

    func volume(_ channel: VolumeChannel, _ value: Float) throws(CommandError) -> [(String, JSON)] {
        let session = controller.session
        let stored = try refusedBySession { () throws(AudioSessionError) in try session.setVolume(value, for: channel) }
        return [("channel", .string(channel.rawValue)), ("value", .number(Double(stored)))]
    }

    func route(_ override: PortOverride) throws(CommandError) -> [(String, JSON)] {
        let session = controller.session
        try refusedBySession { () throws(AudioSessionError) in try session.overrideOutputPort(override) }
        return [("override", .string(override.rawValue)), ("route", session.currentRoute.json)]
    }

    func lease(owner: String, need: AudioRequirement) throws(CommandError) -> [(String, JSON)] {
        let session = controller.session
        if need.needsInput { try requireMicrophone("take a \(need) lease, which records") }
        let token = try refusedBySession { () throws(AudioSessionError) in try session.lease(need, owner: owner) }
        held.withLock { $0.leases[owner, default: []].append(token) }
        controller.waitUntilApplied()
        var fields: [(String, JSON)] = [("lease", .string(token.description)), ("configuration", session.configuration.json)]
        if need.needsInput { fields.append(("recording", .bool(controller.engine.uplink != nil))) }
        return fields
    }

    func release(owner: String) throws(CommandError) -> [(String, JSON)] {
        let session = controller.session
        guard let tokens = held.withLock({ $0.leases.removeValue(forKey: owner) }) else {
            let holders = held.withLock { $0.leases.keys.sorted() }
            let hint = owner == "mic-connect" ? "; the microphone's lease is released with {\"do\":\"mic\",\"on\":false}" : ""
            throw CommandError(.unavailable, "no lease taken with \"lease\" is held by \"\(owner)\""
                               + (holders.isEmpty ? "" : " (held by: \(holders.joined(separator: ", ")))") + hint)
        }
        for token in tokens { try refusedBySession { () throws(AudioSessionError) in try session.release(token) } }
        controller.waitUntilApplied()
        return [("owner", .string(owner)), ("released", .number(Double(tokens.count))), ("configuration", session.configuration.json)]
    }

    private func requireMicrophone(_ what: String) throws(CommandError) {
        if !microphoneAllowed {
            throw CommandError(.unavailable, "cannot \(what): the player was started with --mic none; start it with --mic auto, a device or a file")
        }
    }

    private func refusedBySession<T>(_ body: () throws(AudioSessionError) -> T) throws(CommandError) -> T {
        do {
            return try body()
        } catch {
            throw CommandError(.sessionRefused, error.description)
        }
    }
}
