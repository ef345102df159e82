import ClassroomEngine
import ClassroomNetwork
import Foundation
import GStreamer

/// Turning the command line into settings: every option checked and resolved (files, devices,
/// peers, uplinks, the room, the audio track) before anything plays.
extension Play {
    /// Checks and resolves every option; throws before anything plays.
    func resolve(files: OutputFiles, console: Console) throws(PlayerError) -> PlaySettings {
        let lessonURI = try MediaLocation.uri(for: lesson, role: "lesson")
        let timeline = try script.map { path throws(PlayerError) in try Timeline.load(path: path) }
        let track = try audioTrack.map { choice throws(PlayerError) in try Play.resolveTrack(choice, lessonURI: lessonURI) } ?? 0
        let peers = try Play.resolvePeers(live)
        let uplinkDestinations = try uplink.map { spec throws(PlayerError) in try Play.resolveUplink(spec, files: files) }
        let endpoints = uplinkDestinations.compactMap { destination -> RTPEndpoint? in if case .rtp(let endpoint) = destination { return endpoint }; return nil }
        if let uplinkSdp { try Play.writeSessionDescription(endpoints, to: uplinkSdp, files: files) }
        let roomAddress: JanusRoomAddress?
        do {
            roomAddress = try room.map { uri throws(EngineError) in try JanusRoomAddress(uri: uri, defaultDisplay: Play.defaultDisplay) }
        } catch {
            throw .cannotUse(role: "room", what: JanusRoomAddress.redacted(room ?? ""), reason: PeerArgument.reason(error))
        }

        // Named devices are checked against the sound server's list before anything starts.
        var listing: DeviceListing?
        func devices(for option: String) throws(PlayerError) -> DeviceListing {
            if let listing { return listing }
            let current: DeviceListing
            do { current = try DeviceListing.current() } catch { throw .engineFailed(error.description) }
            guard current.soundServer else { throw .noSoundServer(option: option) }
            listing = current
            return current
        }

        // Asked once, after waiting for it when told to: every choice below that needs a server reads this.
        let needsServer = output.usesSoundServer || mic.usesSoundServer
        let serverAnswers = needsServer && SoundServerWait.answered(within: waitForServer, console: console)
        let target: OutputTarget
        switch output {
        case .auto:
            target = serverAnswers ? .soundServer(device: nil) : .wavFile(path: try files.reserve(fallbackWav, role: "WAV file"))
        case .soundServerDefault:
            guard serverAnswers else { throw .noSoundServer(option: "--output default") }
            target = .soundServer(device: nil)
        case .device(let name):
            let known = try devices(for: "--output \(name)")
            guard known.ids(.output).contains(name) else { throw .unknownDevice(role: "sound-server output", name: name, available: known.ids(.output)) }
            // The session holds a named sink as the user's choice until it goes away (SessionController).
            target = .soundServer(device: name)
        case .wav(let path):
            target = .wavFile(path: try files.reserve(path, role: "WAV file"))
        case .null:
            target = .discard
        }

        let microphone: PlaySettings.Microphone
        switch mic {
        case .auto: microphone = .route
        case .none: microphone = .none
        case .file(let path):
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .unreadableInput(role: "microphone file", path: path, reason: "permission denied")
            }
            microphone = .file(path: URL(fileURLWithPath: path).standardizedFileURL.path)
        case .device(let name):
            let known = try devices(for: "--mic \(name)")
            guard known.ids(.input).contains(name) else { throw .unknownDevice(role: "sound-server input", name: name, available: known.ids(.input)) }
            microphone = .device(name)
        }

        let videoOutput: LessonPlayer.VideoOutput
        var snapshots: (directory: URL, interval: Double)?
        switch video {
        case .auto:
            let environment = ProcessInfo.processInfo.environment
            videoOutput = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil ? .window : .discard
        case .none:
            videoOutput = .none
        case .snapshots(let directory):
            let url = URL(fileURLWithPath: directory)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw .cannotWrite(role: "snapshot folder", path: directory, reason: PlayerError.reason(error))
            }
            guard FileManager.default.isWritableFile(atPath: url.path) else {
                throw .cannotWrite(role: "snapshot folder", path: directory, reason: "permission denied")
            }
            // Decoded in time and kept by the headless sink; the lesson player writes the pictures.
            videoOutput = .discard
            snapshots = (url, snapshotInterval ?? 1)
        }
        return PlaySettings(lessonURI: lessonURI, peers: peers, untilLiveEnds: untilLiveEnds, afterLesson: afterLesson,
                            uplink: uplinkDestinations, uplinkSDPPath: uplinkSdp, room: roomAddress, microphone: microphone, micOnAtStart: micOn,
                            output: target, video: videoOutput, snapshots: snapshots,
                            timeline: timeline, controlPath: control, readsStdin: !noStdin, files: files, audioTrack: track, rate: rate,
                            jitterBuffer: jitterBuffer.map { .fixed(.milliseconds($0)) } ?? PeerFeed.defaultJitterBuffer,
                            outputBuffer: outputBuffer.map { .fixed(.milliseconds($0)) } ?? .adaptive)
    }

    /// `--audio-track N|LANG` as a track number, checked against what the lesson holds.
    static func resolveTrack(_ choice: String, lessonURI: String) throws(PlayerError) -> Int {
        let tracks: [MediaProbe.Stream]
        do {
            tracks = try MediaProbe.run(uri: lessonURI, timeout: .seconds(10)).audioTracks
        } catch {
            throw .cannotUse(role: "audio track", what: choice, reason: "the lesson's tracks could not be read (\(error.description))")
        }
        let languages = tracks.map(\.language)
        guard let index = AudioTrackChoice.index(choice, in: languages) else {
            let reason = Int(choice) != nil ? "the lesson's audio tracks are \(AudioTrackChoice.listing(languages))"
                : "no audio track has the language '\(choice)'; the tracks are \(AudioTrackChoice.listing(languages))"
            throw .cannotUse(role: "audio track", what: choice, reason: reason)
        }
        return index
    }

    /// Every `--live`, with its id (given, or live-1, live-2 … in order); an id given twice is refused.
    static func resolvePeers(_ arguments: [String]) throws(PlayerError) -> [(id: String, source: PeerSource)] {
        let parsed = try arguments.map { argument throws(PlayerError) in (argument, try PeerArgument.parse(argument)) }
        var peers: [(id: String, source: PeerSource)] = []
        var number = 0
        let named = Set(parsed.compactMap { $0.1.id })
        for (argument, peer) in parsed {
            var id = peer.id
            if id == nil {
                repeat { number += 1 } while named.contains("live-\(number)")
                id = "live-\(number)"
            }
            guard let id else { continue }
            if peers.contains(where: { $0.id == id }) {
                throw .cannotUse(role: "live feed", what: argument, reason: "the peer id '\(id)' is given twice; give each --live its own ID=")
            }
            peers.append((id, peer.source))
        }
        return peers
    }

    /// `--uplink`: wav:PATH (created now, so an unwritable path fails before playing), rtp://… (resolved now) or null.
    static func resolveUplink(_ spec: String, files: OutputFiles) throws(PlayerError) -> UplinkDestination {
        if spec == "null" { return .discard }
        if spec.hasPrefix("wav:") {
            let path = String(spec.dropFirst(4))
            guard !path.isEmpty else { throw .cannotUse(role: "uplink", what: spec, reason: "wav: needs a path, e.g. --uplink wav:out/uplink.wav") }
            return .wav(path: try files.reserve(path, role: "uplink WAV file"))
        }
        if spec.lowercased().hasPrefix("rtp://") || spec.lowercased().hasPrefix("srtp://") {
            do {
                return .rtp(try RTPEndpoint(uri: spec))
            } catch {
                throw .cannotUse(role: "uplink", what: spec, reason: PeerArgument.reason(error))
            }
        }
        throw .cannotUse(role: "uplink", what: spec, reason: "use wav:PATH, rtp://HOST:PORT[?pt=N][&codec=pcmu|pcma], srtp://HOST:PORT?key-file=FILE or null")
    }

    /// Writes the SDP of every RTP uplink to `path` (one session description each, in order):
    /// replacing a file whole, through a device or FIFO as it is.
    static func writeSessionDescription(_ endpoints: [RTPEndpoint], to path: String, files: OutputFiles) throws(PlayerError) {
        let output = try OutputPath(path, role: "uplink SDP file")
        if let note = output.note { files.notes.withLock { $0.append("the uplink SDP file \(note)") } }
        // An SRTP uplink's SDP carries its key (a=crypto): only its owner may read it.
        try output.write(Data(endpoints.map { $0.sessionDescription() }.joined().utf8), role: "uplink SDP file", ownerOnly: endpoints.contains { $0.key != nil })
    }

    /// The room's name for this kiosk unless `?display=` gives one: the machine's host name.
    private static var defaultDisplay: String {
        let name = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        return name.isEmpty ? "classroom-player" : String(name.prefix(64))
    }
}
