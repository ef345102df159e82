import ArgumentParser
import Foundation
import GStreamer

/// `classroom-player probe LESSON`: duration, streams, and whether it can play and why not.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a lesson's duration and streams, and whether the player can play it (and why not).",
        discussion: """
            Each stream is shown as stored (its codec) and as decoded on this machine. A lesson can play \
            when its audio decodes: that is what reaches the engine's courseware input.

            Exit status: 0 it can play; 1 it cannot be read (no such file); 2 it cannot play (the reason is \
            printed); 64 bad arguments.
            """
    )

    @Argument(help: "The lesson: a file path or a URI.")
    var lesson: String

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Give up on a source that does not open within this many seconds.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout is a positive number of seconds") }
    }

    func run() throws {
        let console = Console(showsProgress: false)
        let uri: String
        let probe: MediaProbe
        do {
            uri = try MediaLocation.uri(for: lesson, role: "lesson")
            probe = try MediaProbe.run(uri: uri, timeout: .seconds(timeout))
        } catch let error as PlayerError {
            console.err("classroom-player: \(error.description)")
            throw ExitCode(error.exitStatus.rawValue)
        } catch {
            console.err("classroom-player: \(error)")
            throw ExitCode(ExitStatus.playbackFailed.rawValue)
        }
        if json {
            let streams: [JSON] = probe.streams.map {
                .object([("kind", .string($0.kind)), ("codec", .string($0.codec)), ("channels", .maybe($0.channels.map(Double.init))),
                         ("language", .maybe($0.language)), ("languages", $0.language.map { .array(AudioTrackChoice.forms($0).map { .string($0) }) } ?? .null),
                         ("encoded", .string($0.encoded)), ("decoded", .maybe($0.decoded)), ("failure", .maybe($0.failure))])
            }
            console.out(JSON.object([("uri", .string(uri)), ("duration", .maybe(probe.duration?.seconds)), ("seekable", .bool(probe.seekable)),
                                     ("streams", .array(streams)), ("can_play", .bool(probe.canPlay)), ("verdict", .string(probe.verdict))]).serialized)
        } else {
            console.out("Lesson:   \(uri)")
            console.out("Duration: \(probe.duration.map { String(format: "%.2f s", $0.seconds) } ?? "unknown")\(probe.seekable ? ", seekable" : "")")
            var audioIndex = 0
            for (index, stream) in probe.streams.enumerated() {
                var title = "Stream \(index): \(stream.kind)"
                if stream.kind == "audio" {
                    // Every code that chooses it: GStreamer tags "zh", ffprobe and mkvinfo show "zho".
                    title += " track \(audioIndex) (--audio-track \(audioIndex)\(stream.language.map { " or \(AudioTrackChoice.forms($0).joined(separator: ", "))" } ?? "")): \(stream.codec)"
                        + "\(stream.channels.map { ", \($0) channel\($0 == 1 ? "" : "s")" } ?? "")\(stream.language.map { ", language \($0)" } ?? "")"
                    audioIndex += 1
                }
                console.out(title)
                console.out("  stored:  \(stream.encoded)")
                console.out("  decoded: \(stream.decoded ?? "no — \(stream.failure ?? "not decoded")")")
            }
            console.out("Verdict:  \(probe.verdict)")
        }
        if !probe.canPlay { throw ExitCode(ExitStatus.playbackFailed.rawValue) }
    }
}
