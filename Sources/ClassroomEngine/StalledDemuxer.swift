import GStreamer

/// A demuxer in a lesson pipeline that stopped reading before it exposed a single stream.
///
/// A file it cannot play (an MP4 cut before its `moov`) makes the demuxer pause its loop and post
/// an error. decodebin2 drops that error when it is posted in the instant between the demuxer's
/// start and decodebin lifting its error filter (WORKAROUNDS §32), and then nothing comes: no
/// error, no stream, no preroll. The stopped loop with no source pad is what stays to be seen.
struct StalledDemuxer: Sendable {
    /// The demuxer's name, e.g. "qtdemux0".
    let name: String

    /// The first demuxer in `bin` (at any depth) whose pull loop has stopped and waits, and that has
    /// no source pad. Waits: paused with its stream lock let go. oggdemux pauses its own loop around
    /// the seek it makes before it adds its first pad, from inside the loop (gstoggdemux.c,
    /// `perform_seek_pull`), and a look in that instant took a healthy Ogg for stalled (1 in 38).
    static func find(in bin: Bin) -> StalledDemuxer? {
        for element in bin.descendants where element.klass.contains("Demuxer") {
            let pads = element.pads
            guard !pads.contains(where: { $0.direction == .source }),
                  pads.contains(where: { $0.direction == .sink && $0.taskState == .paused && $0.isStreamLockFree }) else { continue }
            return StalledDemuxer(name: element.name)
        }
        return nil
    }

    /// What the lesson reports in place of the error that was lost.
    func failure(uri: String) -> (problem: LessonProblem, detail: String) {
        (.damaged, "The demuxer stopped before it found a playable stream [\(name) on \(uri)]")
    }
}
