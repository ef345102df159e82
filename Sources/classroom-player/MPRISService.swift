import ClassroomEngine
import DBus
import Dispatch
import Foundation
import Logging
import Synchronization

/// MPRIS 2.2 on the session bus (`org.mpris.MediaPlayer2.classroom_player`), so desktop
/// controls, `playerctl` and kiosk tooling see and drive the lesson like any media player.
///
/// A thin adapter: every method goes through `PlayerRun.perform` (the control socket's
/// executor) and every property is read from the `status` answer; PropertiesChanged is sent
/// for what differs from the last values sent, checked after each event and every second.
final class MPRISService: RunFollower, DBusObjectHandler {
    static let busName = "org.mpris.MediaPlayer2.classroom_player"
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// D-Bus errors this player answers with: `…Error.<command error code>`.
    static let errorPrefix = "org.mpris.MediaPlayer2.classroom_player.Error."

    private struct State {
        var run: PlayerRun?
        var server: DBusObjectServer?
        /// The Player properties last announced, to send only what changed.
        var announced: [String: DBusValue] = [:]
        var timer: DispatchSourceToken?
    }

    private let logger: Logger
    private let state = Mutex(State())
    private let refreshes = DispatchQueue(label: "classroom-player.mpris")

    /// Whether a session bus is there to export on: DBUS_SESSION_BUS_ADDRESS, or the user bus socket.
    static var sessionBusExists: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"] else { return false }
        var status = stat()
        return lstat("\(runtime)/bus", &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Follows `events` (changes are announced as they happen); nothing is exported until `connect()`.
    init(events: EventLog, logger: Logger) {
        self.logger = logger
        events.follow { [weak self] name, fields in self?.eventHappened(name, fields) }
    }

    /// Exports the object and owns the name (with `.instance<PID>` when another player has it).
    func connect() throws(DBusError) {
        let server = try DBusObjectServer(introspection: Self.introspection, path: Self.objectPath,
                                          names: [Self.busName, "\(Self.busName).instance\(getpid())"], handler: self)
        state.withLock { $0.server = server }
    }

    /// The name owned, once connected.
    var busName: String? { state.withLock { $0.server?.busName } }

    func runStarted(_ run: PlayerRun) {
        let timer = DispatchSourceToken.repeating(every: .seconds(1), on: refreshes) { [weak self] in self?.announceChanges() }
        state.withLock { $0.run = run; $0.timer = timer }
        refreshes.async { [weak self] in self?.announceChanges() }
    }

    func outputAdvanced() {}

    func runStopping() {
        let (timer, server) = state.withLock { state in
            defer { state.run = nil; state.timer = nil; state.server = nil }
            return (state.timer, state.server)
        }
        timer?.cancel()
        refreshes.sync {}
        // Stopped, then gone: a client sees the player stop before the name vanishes.
        server?.propertiesChanged(interface: Self.playerInterface, changed: [("PlaybackStatus", .string("Stopped"))])
        server?.stop()
    }

    // MARK: Events

    private func eventHappened(_ name: String, _ fields: [(String, JSON)]) {
        guard name != "snapshot" else { return }
        if name == "lesson-seeked", case .number(let seconds)? = JSON.object(fields)["position"] {
            let server = state.withLock { $0.server }
            server?.emitSignal(interface: Self.playerInterface, name: "Seeked", arguments: [.int64(Int64(seconds * 1e6))])
        }
        refreshes.async { [weak self] in self?.announceChanges() }
    }

    /// Sends PropertiesChanged for every Player property whose value differs from the last sent.
    /// Position is left out, as MPRIS says: clients extrapolate it and are told of jumps by Seeked.
    private func announceChanges() {
        guard let (run, server) = state.withLock({ state in state.run.flatMap { run in state.server.map { (run, $0) } } }),
              let fields = try? run.perform(.status, from: "mpris") else { return }
        let current = Self.playerProperties(JSON.object(fields)).filter { $0.0 != "Position" }
        let changed = state.withLock { state -> [(String, DBusValue)] in
            let changed = current.filter { state.announced[$0.0] != $0.1 }
            for (name, value) in changed { state.announced[name] = value }
            return changed
        }
        server.propertiesChanged(interface: Self.playerInterface, changed: changed)
    }

    // MARK: Properties

    func property(interface: String, name: String) -> DBusValue? {
        if interface == Self.rootInterface { return Self.rootProperties.first { $0.0 == name }?.1 }
        let status = currentStatus()
        return Self.playerProperties(status).first { $0.0 == name }?.1
    }

    func setProperty(interface: String, name: String, value: DBusValue) -> String? {
        switch (name, value) {
        case ("Volume", .double(let volume)):
            // MPRIS allows more than 1 and less than 0; the media channel is 0…1.
            do {
                _ = try perform(.volume(channel: .media, value: Float(min(max(volume, 0), 1))))
                return nil
            } catch {
                return error.message
            }
        case ("Rate", .double(let rate)):
            return rate == 1 ? nil : "a lesson plays at its own rate only (MinimumRate = MaximumRate = 1)"
        default:
            return "\(name) cannot be set"
        }
    }

    private func currentStatus() -> JSON {
        guard let run = state.withLock({ $0.run }), let fields = try? run.perform(.status, from: "mpris") else { return .object([]) }
        return .object(fields)
    }

    /// The root interface's properties: fixed for a player without a window or a track list.
    static let rootProperties: [(String, DBusValue)] = [
        ("Identity", .string("Classroom player")), ("CanQuit", .boolean(true)), ("CanRaise", .boolean(false)),
        ("HasTrackList", .boolean(false)), ("CanSetFullscreen", .boolean(false)), ("Fullscreen", .boolean(false)),
        ("SupportedUriSchemes", .strings(MediaLocation.lessonSchemes)),
        ("SupportedMimeTypes", .strings(["video/webm", "video/mp4", "video/ogg", "audio/ogg", "audio/webm", "audio/wav", "audio/x-wav", "audio/mpeg", "audio/flac"])),
    ]

    /// The Player interface's properties, read from a `status` answer.
    static func playerProperties(_ status: JSON) -> [(String, DBusValue)] {
        let lesson = status["lesson"]
        var lessonState = "loading"
        if case .string(let value)? = lesson?["state"] { lessonState = value }
        var position = 0.0, duration: Double?
        if case .number(let value)? = lesson?["position"] { position = value }
        if case .number(let value)? = lesson?["duration"] { duration = value }
        var volume = 1.0
        if case .number(let value)? = status["session"]?["media_volume"] { volume = value }
        let playback: String
        switch lessonState {
        case "playing": playback = "Playing"
        case "paused": playback = "Paused"
        default: playback = "Stopped"
        }
        let loaded = lessonState != "loading" && lessonState != "failed" && status["lesson"] != nil
        return [
            ("PlaybackStatus", .string(playback)), ("Rate", .double(1)), ("MinimumRate", .double(1)), ("MaximumRate", .double(1)),
            ("Metadata", metadata(lesson)), ("Volume", .double(volume)), ("Position", .int64(Int64(position * 1e6))),
            ("CanGoNext", .boolean(false)), ("CanGoPrevious", .boolean(false)), ("CanPlay", .boolean(loaded)), ("CanPause", .boolean(loaded)),
            ("CanSeek", .boolean(loaded && duration != nil)), ("CanControl", .boolean(true)),
        ]
    }

    /// mpris:trackid (derived from the URI, so a new lesson is a new track), mpris:length, xesam:title, xesam:url.
    static func metadata(_ lesson: JSON?) -> DBusValue {
        guard case .string(let uri)? = lesson?["uri"] else { return .dictionary([("mpris:trackid", .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack"))]) }
        var entries: [(String, DBusValue)] = [("mpris:trackid", .objectPath(trackID(uri)))]
        if case .number(let duration)? = lesson?["duration"] { entries.append(("mpris:length", .int64(Int64(duration * 1e6)))) }
        let name = URL(string: uri)?.lastPathComponent ?? uri
        entries += [("xesam:title", .string(name.isEmpty ? uri : name)), ("xesam:url", .string(uri))]
        return .dictionary(entries)
    }

    /// `/org/mpris/MediaPlayer2/classroom_player/lesson_<64-bit FNV-1a of the URI>`.
    static func trackID(_ uri: String) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in uri.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return "/org/mpris/MediaPlayer2/classroom_player/lesson_" + String(hash, radix: 16)
    }

    // MARK: Methods

    func call(interface: String, method: String, arguments: [DBusValue]) -> DBusReply {
        do throws(CommandError) {
            try perform(method: method, arguments: arguments)
            refreshes.async { [weak self] in self?.announceChanges() }
            return .done
        } catch {
            return .error(name: Self.errorPrefix + Self.errorName(error.code), message: error.message)
        }
    }

    private func perform(method: String, arguments: [DBusValue]) throws(CommandError) {
        let lesson = currentStatus()["lesson"]
        var lessonState = "loading"
        if case .string(let value)? = lesson?["state"] { lessonState = value }
        var position = 0.0, duration: Double?
        if case .number(let value)? = lesson?["position"] { position = value }
        if case .number(let value)? = lesson?["duration"] { duration = value }
        switch method {
        case "Play":
            if lessonState == "ended" { _ = try perform(.seek(position: 0)) }
            if lessonState != "playing" { _ = try perform(.resume) }
        case "Pause":
            if lessonState == "playing" { _ = try perform(.pause) }
        case "PlayPause":
            if lessonState == "playing" { _ = try perform(.pause) } else { try perform(method: "Play", arguments: []) }
        case "Stop":
            // No lesson-less state here: Stop pauses at the start (PlaybackStatus then reads Paused).
            if lessonState == "playing" { _ = try perform(.pause) }
            _ = try perform(.seek(position: 0))
        case "Seek":
            guard case .int64(let offset)? = arguments.first else { throw CommandError(.badValue, "Seek takes an offset in microseconds (x)") }
            let target = max(0, position + Double(offset) / 1e6)
            // Past the end, MPRIS says to go to the next track; there is none, so nothing happens.
            if let duration, target > duration { return }
            _ = try perform(.seek(position: target))
        case "SetPosition":
            guard arguments.count == 2, case .objectPath(let track) = arguments[0], case .int64(let microseconds) = arguments[1] else {
                throw CommandError(.badValue, "SetPosition takes a track id (o) and a position in microseconds (x)")
            }
            // A stale track id or a position outside the lesson is ignored, as MPRIS says.
            guard case .string(let uri)? = lesson?["uri"], track == Self.trackID(uri), microseconds >= 0 else { return }
            let target = Double(microseconds) / 1e6
            if let duration, target > duration { return }
            _ = try perform(.seek(position: target))
        case "OpenUri":
            guard case .string(let uri)? = arguments.first else { throw CommandError(.badValue, "OpenUri takes a URI (s)") }
            _ = try perform(.load(lesson: uri))
        case "Next", "Previous", "Raise":
            return   // CanGoNext, CanGoPrevious and CanRaise are false: no effect, as MPRIS says
        case "Quit":
            _ = try perform(.stop)
        default:
            throw CommandError(.unknownVerb, "\(method) is not a method of the MPRIS interfaces")
        }
    }

    private func perform(_ command: Command) throws(CommandError) -> [(String, JSON)] {
        guard let run = state.withLock({ $0.run }) else { throw CommandError(.unavailable, "the lesson is not playing yet") }
        return try run.perform(command, from: "mpris")
    }

    /// `bad-value` → `BadValue`: D-Bus error names are dotted identifiers.
    static func errorName(_ code: CommandError.Code) -> String {
        code.rawValue.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player, as MPRIS 2.2 specifies them.
    static let introspection = """
    <node>
      <interface name="org.mpris.MediaPlayer2">
        <method name="Raise"/>
        <method name="Quit"/>
        <property name="CanQuit" type="b" access="read"/>
        <property name="Fullscreen" type="b" access="read"/>
        <property name="CanSetFullscreen" type="b" access="read"/>
        <property name="CanRaise" type="b" access="read"/>
        <property name="HasTrackList" type="b" access="read"/>
        <property name="Identity" type="s" access="read"/>
        <property name="SupportedUriSchemes" type="as" access="read"/>
        <property name="SupportedMimeTypes" type="as" access="read"/>
      </interface>
      <interface name="org.mpris.MediaPlayer2.Player">
        <method name="Next"/>
        <method name="Previous"/>
        <method name="Pause"/>
        <method name="PlayPause"/>
        <method name="Stop"/>
        <method name="Play"/>
        <method name="Seek"><arg direction="in" name="Offset" type="x"/></method>
        <method name="SetPosition"><arg direction="in" name="TrackId" type="o"/><arg direction="in" name="Position" type="x"/></method>
        <method name="OpenUri"><arg direction="in" name="Uri" type="s"/></method>
        <signal name="Seeked"><arg name="Position" type="x"/></signal>
        <property name="PlaybackStatus" type="s" access="read"/>
        <property name="Rate" type="d" access="readwrite"/>
        <property name="Metadata" type="a{sv}" access="read"/>
        <property name="Volume" type="d" access="readwrite"/>
        <property name="Position" type="x" access="read"/>
        <property name="MinimumRate" type="d" access="read"/>
        <property name="MaximumRate" type="d" access="read"/>
        <property name="CanGoNext" type="b" access="read"/>
        <property name="CanGoPrevious" type="b" access="read"/>
        <property name="CanPlay" type="b" access="read"/>
        <property name="CanPause" type="b" access="read"/>
        <property name="CanSeek" type="b" access="read"/>
        <property name="CanControl" type="b" access="read"/>
      </interface>
    </node>
    """
}
