import ClassroomMeasurement
import Foundation
import Testing

/// `--output SINK` and `--mic SOURCE` on a server whose default is another device of the same
/// class: the named device is the user's choice (DESIGN §4 Routes). It holds while it is connected,
/// a newly plugged headset included, and only its going away hands the stream to the route's choice.
@Suite("classroom-player keeps the output and microphone the user named",
       .serialized, .enabled(if: ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1", "needs the private PulseAudio server of scripts/with-pulseaudio.sh"))
struct NamedDeviceTests {
    static let speakerClass = "device.form_factor=internal"

    @Test("--output back plays on back while front is the default and a headset is plugged; when back goes away the route's headset takes it, with an event")
    func namedOutputHolds() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tag = UInt32.random(in: 0...UInt32.max)
        let (back, front, headset) = ("back_\(tag)", "front_\(tag)", "headset_\(tag)")
        // Back first, front last and default: the route's pick is front either way.
        var backModule: String? = try PulseAudioControl.loadNullSink(back, properties: "device.description=Back \(Self.speakerClass)")
        let frontModule = try PulseAudioControl.loadNullSink(front, properties: "device.description=Front \(Self.speakerClass)")
        try PulseAudioControl.pactl("set-default-sink", front)
        defer {
            _ = try? PulseAudioControl.pactl("set-default-sink", "speaker")
            backModule.map(PulseAudioControl.unload)
            PulseAudioControl.unload(frontModule)
        }
        let lesson = folder.appendingPathComponent("tone.wav"), events = folder.appendingPathComponent("events.jsonl")
        try Fixtures.toneLesson(at: lesson, seconds: 40)
        let player = try PlayerProcess(["play", lesson.path, "--output", back, "--mic", "none", "--video", "none", "--events", events.path,
                                        "--no-stdin", "--no-mpris"], in: folder)
        defer { player.signal(SIGKILL) }
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "stderr: \(player.stderr)")
        #expect(try PulseStreams.sink(ofPlayerStream: .output) == back)
        // The route's move to front, when there is one, comes within 100 ms of the stream's start.
        #expect(await !waitUntil(timeout: .seconds(2)) { (try? PulseStreams.sink(ofPlayerStream: .output)) != back },
                "moved to \(String(describing: try? PulseStreams.sink(ofPlayerStream: .output))); events: \(Fixtures.events(events, named: "route-changed"))")

        // A headset is what the route takes when it comes; the user's choice still holds.
        let headsetModule = try PulseAudioControl.loadNullSink(headset, properties: "device.description='USB Headset' device.form_factor=headset device.bus=usb")
        defer { PulseAudioControl.unload(headsetModule) }
        #expect(await !waitUntil(timeout: .seconds(2)) { (try? PulseStreams.sink(ofPlayerStream: .output)) != back })

        // Back goes away: the choice ends (an event), and the route's choice, the headset, plays.
        try PulseAudioControl.pactl("unload-module", try #require(backModule))
        backModule = nil
        #expect(await waitUntil(timeout: .seconds(8)) { (try? PulseStreams.sink(ofPlayerStream: .output)) == headset },
                "on \(String(describing: try? PulseStreams.sink(ofPlayerStream: .output))); stderr: \(player.stderr)")
        let ended = Fixtures.events(events, named: "device-choice-ended")
        #expect(ended.count == 1 && ended.first?["device"] as? String == back && ended.first?["direction"] as? String == "output", "\(ended)")
        let gone = Fixtures.events(events, named: "route-changed").filter { $0["reason"] as? String == "oldDeviceUnavailable" }
        #expect(gone.contains { (($0["route"] as? [String: Any])?["output"] as? [String: Any])?["device"] as? String == headset }, "\(gone)")
        print("FIGURE named output: on \(back) through start and a headset plug; after unplug on \(String(describing: try? PulseStreams.sink(ofPlayerStream: .output)))")
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(15)) == 143, "stderr: \(player.stderr)")
    }

    @Test("--mic B records from B while the route would pick A; when B goes away the route's A takes it, not the server's default, with an event")
    func namedMicrophoneHolds() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tag = UInt32.random(in: 0...UInt32.max)
        let (named, other) = ("mic_b_\(tag)", "mic_a_\(tag)")
        // The named one first, the other last: the route's pick is the other. The server's default
        // source is the speaker's monitor, where the server itself moves a stream whose source went away
        // (left to itself it would prefer a null source to a monitor).
        var namedModule: String? = try PulseAudioControl.pactl("load-module", "module-null-source", "source_name=\(named)",
                                                                 "description=MicB")
        let otherModule = try PulseAudioControl.pactl("load-module", "module-null-source", "source_name=\(other)",
                                                      "description=MicA")
        let defaultSource = try PulseAudioControl.pactl("get-default-source")
        try PulseAudioControl.pactl("set-default-source", "speaker.monitor")
        defer {
            _ = try? PulseAudioControl.pactl("set-default-source", defaultSource)
            namedModule.map(PulseAudioControl.unload)
            PulseAudioControl.unload(otherModule)
        }
        let lesson = folder.appendingPathComponent("tone.wav"), events = folder.appendingPathComponent("events.jsonl")
        let timeline = folder.appendingPathComponent("timeline.json")
        try Fixtures.toneLesson(at: lesson, seconds: 40)
        try #"[{"at": 0.2, "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        let player = try PlayerProcess(["play", lesson.path, "--output", "speaker", "--mic", named, "--script", timeline.path, "--video", "none",
                                        "--events", events.path, "--no-stdin", "--no-mpris"], in: folder)
        defer { player.signal(SIGKILL) }
        #expect(await waitUntil(timeout: .seconds(15)) { (try? PulseStreams.sink(ofPlayerStream: .input)) != nil }, "stderr: \(player.stderr)")
        #expect(try PulseStreams.sink(ofPlayerStream: .input) == named)
        #expect(await !waitUntil(timeout: .seconds(2)) { (try? PulseStreams.sink(ofPlayerStream: .input)) != named })

        try PulseAudioControl.pactl("unload-module", try #require(namedModule))
        namedModule = nil
        #expect(await waitUntil(timeout: .seconds(8)) { (try? PulseStreams.sink(ofPlayerStream: .input)) == other },
                "on \(String(describing: try? PulseStreams.sink(ofPlayerStream: .input))); stderr: \(player.stderr)")
        let ended = Fixtures.events(events, named: "device-choice-ended")
        #expect(ended.count == 1 && ended.first?["device"] as? String == named && ended.first?["direction"] as? String == "input", "\(ended)")
        print("FIGURE named microphone: on \(named) after mic-on; after unplug on \(String(describing: try? PulseStreams.sink(ofPlayerStream: .input)))")
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(15)) == 143, "stderr: \(player.stderr)")
    }

    @Test("a named output or microphone that does not exist is exit 1, naming it, before anything plays")
    func absentDeviceRefused() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        for option in ["--output", "--mic"] {
            let missing = "missing_\(UInt32.random(in: 0...UInt32.max))"
            let result = try await PlayerProcess.run(["play", lesson.path, option, missing, "--no-stdin", "--no-mpris"], in: folder)
            #expect(result.status == 1 && result.stderr.contains(missing), "\(option): exit \(result.status); stderr: \(result.stderr)")
        }
    }
}

/// Where the server has classroom-player's streams, from `pactl list sink-inputs` / `source-outputs`.
enum PulseStreams {
    enum Kind { case output, input }

    /// The name of the sink the player's output stream is on, or of the source its microphone
    /// (media.role phone: not the output witness on the sink's monitor) records; nil when none.
    static func sink(ofPlayerStream kind: Kind) throws -> String? {
        let (streams, devices, key) = kind == .output ? ("sink-inputs", "sinks", "Sink: ") : ("source-outputs", "sources", "Source: ")
        var names: [String: String] = [:]
        for line in try PulseAudioControl.pactl("list", "short", devices).split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count >= 2 { names[String(fields[0])] = String(fields[1]) }
        }
        var device: String?, ours = false, microphone = false
        var found: [(device: String?, microphone: Bool)] = []
        var lines: [Substring] = try PulseAudioControl.pactl("list", streams).split(separator: "\n")
        lines.append("Sink Input #end")
        for line in lines {
            let field = line.drop { $0 == " " || $0 == "\t" }
            if field.hasPrefix("Sink Input #") || field.hasPrefix("Source Output #") {
                if ours { found.append((device.flatMap { names[$0] }, microphone)) }
                (device, ours, microphone) = (nil, false, false)
            }
            if field.hasPrefix(key) { device = String(field.dropFirst(key.count)) }
            if field == #"application.name = "classroom-audio""# { ours = true }
            if field == #"media.role = "phone""# { microphone = true }
        }
        return kind == .output ? found.first?.device : found.first { $0.microphone }?.device
    }
}
