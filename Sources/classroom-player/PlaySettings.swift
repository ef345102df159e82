import ClassroomEngine
import ClassroomNetwork
import Foundation

/// Everything `play` resolved from its command line, checked before anything starts.
struct PlaySettings: Sendable {
    /// What stands for the microphone.
    enum Microphone: Sendable, Equatable, CustomStringConvertible {
        /// No microphone: `mic` and recording leases are refused.
        case none
        /// The route's input device (the sound server's microphone, as the session resolves it).
        case route
        /// A sound-server source by name.
        case device(String)
        /// A file played in real time as the microphone.
        case file(path: String)

        var description: String {
            switch self {
            case .none: return "none"
            case .route: return "the route's input"
            case .device(let name): return "device \(name)"
            case .file(let path): return "file \(path)"
            }
        }
    }

    /// The lesson's URI.
    let lessonURI: String
    /// The peers (live feeds), each with its id.
    let peers: [(id: String, source: PeerSource)]
    /// Keep playing until every live feed ends too.
    let untilLiveEnds: Bool
    /// What the run does when the lesson ends.
    let afterLesson: AfterLesson
    /// Where the processed microphone goes besides the uplink callback (empty: nowhere).
    let uplink: [UplinkDestination]
    /// Where the RTP uplink's session description is written.
    let uplinkSDPPath: String?
    /// The conferencing room to join, if any.
    let room: JanusRoomAddress?
    /// The microphone.
    let microphone: Microphone
    /// Whether the microphone is connected at start.
    let micOnAtStart: Bool
    /// Where the mix goes.
    let output: OutputTarget
    /// The lesson's picture.
    let video: LessonPlayer.VideoOutput
    /// Snapshot folder and interval, for `--video snapshots:DIR`.
    let snapshots: (directory: URL, interval: Double)?
    /// The unattended script.
    let timeline: Timeline?
    /// The control socket's path.
    let controlPath: String?
    /// Whether control lines are read from standard input.
    let readsStdin: Bool
    /// The WAV files being written under temporary names.
    let files: OutputFiles
    /// The lesson's audio track heard first (0-based).
    let audioTrack: Int
    /// The lesson's playback rate, when not 1.
    let rate: Double?
    /// How long RTP peers and the room hold packets for late ones.
    let jitterBuffer: JitterBufferSetting
    /// How much of the mix waits in the sound server ahead of the device.
    let outputBuffer: OutputBufferSetting

    /// The output as the user named it (a WAV by its final path).
    var displayedOutput: OutputTarget {
        if case .wavFile(let path) = output { return .wavFile(path: files.finalPath(path)) }
        return output
    }

    /// The uplink destinations as the user named them.
    var displayedUplink: [String] {
        uplink.map { destination in
            if case .wav(let path) = destination { return UplinkDestination.wav(path: files.finalPath(path)).description }
            return destination.description
        }
    }

    /// Where the video goes, as the `started` event says it.
    var videoDescription: String {
        if let snapshots { return "snapshots in \(snapshots.directory.path) every \(snapshots.interval) s" }
        switch video {
        case .window: return "window"
        case .discard: return "decoded and discarded"
        case .none: return "none"
        case .frames: return "frames to a tap"
        }
    }
}
