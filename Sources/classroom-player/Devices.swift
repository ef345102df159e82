import ArgumentParser
import ClassroomAudio
import ClassroomEngine
import Foundation
import GStreamer
import Logging

/// `classroom-player devices`: the sound server's devices, the port each is classified as, and
/// the route the session would pick now, for the lesson alone and with the microphone connected.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List audio devices with their classified ports, and the route the session would pick now.",
        discussion: """
            Devices come from the sound server (PulseAudio, or PipeWire's pulse server) through GStreamer's \
            device monitor and are classified with the session's port classifier (form factor, bus, profile). \
            The routes are what a session would choose with these devices: for the lesson alone (a playback \
            lease) and with the microphone connected (a voiceCall lease). Names in the first column are what \
            'play --output' and 'play --mic' take.

            Exit status: 0 listed (also when no sound server answers: then there are no devices, and the \
            headless route is described); 2 GStreamer failed.
            """
    )

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let console = Console(showsProgress: false)
        let listing: DeviceListing
        do {
            listing = try DeviceListing.current()
        } catch {
            console.err("classroom-player: \(error.description)")
            throw ExitCode(ExitStatus.playbackFailed.rawValue)
        }
        let classifier = PortClassifier.standard
        let routes = Devices.routes(for: listing.devices)
        if json {
            let devices: [JSON] = listing.devices.map { device in
                let classification = classifier.classify(device)
                return .object([
                    ("id", .string(device.id)), ("name", .string(device.name)), ("direction", .string(device.direction.rawValue)),
                    ("default", .bool(device.isDefault)), ("port", .maybe(classification?.port.rawValue)), ("rule", .maybe(classification?.rule)),
                    ("properties", .object(device.properties.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ])
            }
            console.out(JSON.object([("sound_server", .bool(listing.soundServer)), ("devices", .array(devices)),
                                     ("routes", .object([("playback", routes.playback.json), ("voice_call", routes.voiceCall.json)]))]).serialized)
            return
        }
        guard listing.soundServer else {
            console.out("""
                No sound server (PulseAudio or PipeWire) answered, so there are no devices.
                'play --output auto' writes a WAV file instead (the headless route: built-in speaker), \
                and '--mic auto' has no microphone: use '--mic FILE' to stand one in.
                """)
            return
        }
        for direction in AudioDevice.Direction.allCases {
            let devices = listing.devices.filter { $0.direction == direction }
            console.out(direction == .output ? "Outputs:" : "Inputs:")
            if devices.isEmpty { console.out("  (none)") }
            for device in devices {
                let port = classifier.classify(device).map { "\($0.port) (rule \($0.rule))" } ?? "not a route (\(device.property(AudioDevice.PropertyKey.deviceClass) ?? "unclassified"))"
                let flags = device.isDefault ? "  [default]" : ""
                console.out("  \(device.id.padding(toLength: max(24, device.id.count), withPad: " ", startingAt: 0))  \(device.name)  →  \(port)\(flags)")
            }
        }
        console.out("Route now:")
        console.out("  the lesson alone (playback):        \(routes.playback)")
        console.out("  with the microphone (voiceCall):    \(routes.voiceCall)")
    }

    /// The routes a session would choose with `devices`.
    static func routes(for devices: [AudioDevice]) -> (playback: AudioRoute, voiceCall: AudioRoute) {
        let logger = Logger(label: "devices") { _ in SwiftLogNoOpLogHandler() }
        guard let session = try? AudioSession(hardware: SimulatedAudioHardware(), logger: logger) else { return (.none, .none) }
        for device in devices { session.addDevice(device) }
        _ = try? session.lease(.playback, owner: "courseware")
        let playback = session.currentRoute
        _ = try? session.lease(.voiceCall, owner: "mic-connect")
        return (playback, session.currentRoute)
    }
}
