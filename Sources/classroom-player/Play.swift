import ArgumentParser
import Foundation
import GStreamer
import Logging

/// `classroom-player play LESSON [--live FEED] [--output auto|default|wav:PATH|null]`.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a lesson (video + audio) and mix a live feed into the same output.",
        discussion: """
            The lesson's video is decoded to a video sink; its audio and the live feed's audio are \
            mixed and played on the default output of the sound server. When no sound server \
            answers, the mix is written to a WAV file instead and its path is printed.

            Exit codes: 0 played; 1 bad arguments or unreadable input; 2 playback failed; \
            3 played, but the output was silent.
            """
    )

    @Argument(help: "The lesson: a file path or a URI GStreamer can decode.")
    var lesson: String

    @Option(name: .long, help: "A file played as the live feed and mixed with the lesson.")
    var live: String?

    @Option(name: .long, help: "Where the sound goes: auto (sound server, else WAV), default (sound server only), wav:PATH, or null.")
    var output: OutputChoice = .auto

    @Option(name: .long, help: "Where the video goes: auto (a window when a display is there, else discarded) or none.")
    var video: VideoChoice = .auto

    @Option(name: .long, help: "The WAV written by --output auto when there is no sound server.")
    var fallbackWav: String = "out/lesson-mix.wav"

    func run() throws {
        var logger = Logger(label: "classroom-player")
        logger.logLevel = .info
        do {
            let lessonURI = try MediaLocation.uri(for: lesson, role: "lesson")
            let liveURI = try live.map { try MediaLocation.uri(for: $0, role: "live feed") }
            let sink = try OutputSink.resolve(output, fallbackWav: fallbackWav)
            let player = try LessonMixPlayer(lessonURI: lessonURI, liveURI: liveURI, output: sink,
                                             showVideo: video == .auto && ProcessInfo.processInfo.environment["DISPLAY"] != nil,
                                             logger: logger)
            print("Sound goes to: \(sink.description)")
            let summary = try player.playToEnd()
            print(summary.description)
            if summary.isSilent {
                print("The output was silent (peak \(Summary.format(summary.peakDB)) dBFS): check the lesson's audio track and the feed.")
                throw ExitCode(3)
            }
        } catch let error as PlayerError {
            printError("classroom-player: \(error.description)")
            throw ExitCode(error.exitCode)
        } catch let error as GStreamerError {
            printError("classroom-player: \(error.description)")
            throw ExitCode(2)
        }
    }
}

/// Where `--output` sends the sound.
enum OutputChoice: ExpressibleByArgument, Equatable {
    case auto, soundServer, wav(String), null

    init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "default": self = .soundServer
        case "null": self = .null
        default:
            guard argument.hasPrefix("wav:"), argument.count > 4 else { return nil }
            self = .wav(String(argument.dropFirst(4)))
        }
    }
}

/// Where `--video` sends the picture.
enum VideoChoice: String, ExpressibleByArgument {
    case auto, none
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
