import ClassroomAudio
import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// The pad-added work of the lesson decoder; runs on a streaming thread.
struct LessonBranches: Sendable {
    let pipeline: Pipeline
    let courseware: AudioInput
    let video: LessonPlayer.VideoOutput
    /// The engine's output latency now (an output underrun raises it).
    let videoDelay: Locked<ClockTime>
    let logger: Logger
    let tokens: Locked<[any AnyObject & Sendable]>
    let tracks: LessonAudioTracks

    func link(_ pad: Pad) {
        let media = pad.currentCaps?.structure()?.name ?? pad.queryCaps().structure()?.name ?? ""
        do {
            if media.hasPrefix("audio/") {
                try attachAudio(pad)
            } else if media.hasPrefix("video/"), case .frames(let tap) = video {
                try attach([try ElementFactory.make("queue", name: EngineGraph.Lesson.videoQueue), try ElementFactory.make("videoconvert", name: EngineGraph.Lesson.videoConvert),
                            try makeFrameSink(tap)], to: pad)
            } else if media.hasPrefix("video/"), video != .none {
                // The fakesink keeps its last frame (enable-last-sample) for snapshots.
                let sink = video == .window
                    ? try ElementFactory.make("autovideosink", name: EngineGraph.Lesson.videoSink, properties: ["ts-offset": .int(Int64(videoDelay.withLock { $0 }.nanoseconds))])
                    : try ElementFactory.make("fakesink", name: EngineGraph.Lesson.videoSink, properties: [
                        "sync": true, "ts-offset": .int(Int64(videoDelay.withLock { $0 }.nanoseconds)), "enable-last-sample": true,
                    ])
                try attach([try ElementFactory.make("queue", name: EngineGraph.Lesson.videoQueue), try ElementFactory.make("videoconvert", name: EngineGraph.Lesson.videoConvert), sink], to: pad)
            } else if media.hasPrefix("video/") {
                // Not shown, but in time: the lesson keeps its length and position (a video-only lesson plays, silent).
                try attach([try ElementFactory.make("fakesink", properties: ["sync": true, "async": false])], to: pad)
            } else {
                // An unused stream still needs a sink, or the decoder stops with not-linked.
                try attach([try ElementFactory.make("fakesink", properties: ["sync": false, "async": false])], to: pad)
            }
        } catch {
            logger.error("cannot play the lesson's \(media) stream: \(error)")
        }
    }

    /// An appsink that renders (calls the tap) at the frame's presentation time, delayed like any video sink.
    private func makeFrameSink(_ tap: VideoFrameTap) throws(GStreamerError) -> AppSink {
        let sink = try AppSink.make(name: EngineGraph.Lesson.videoSink)
        try sink.configure(caps: try Caps("video/x-raw,format=\(tap.format)"), maxBuffers: 1, drop: false, sync: true)
        try sink.set("ts-offset", .int(Int64(videoDelay.withLock { $0 }.nanoseconds)))
        let token = try sink.onNewSample { sample in tap.handler(sample) }
        tokens.withLock { $0.append(token) }
        return sink
    }

    private func attachAudio(_ pad: Pad) throws(GStreamerError) {
        try tracks.add(pad) { () throws(GStreamerError) -> Element in try makeAudioChain() }
    }

    /// input-selector ► … ► appsink: built once, for the first audio track; returns the selector.
    private func makeAudioChain() throws(GStreamerError) -> Element {
        // sync-mode clock: the tracks not heard advance in real time too, so a switch finds the same moment (not their end).
        let selector = try ElementFactory.make("input-selector", name: EngineGraph.Lesson.audioSelect, properties: ["sync-mode": .enumNick("clock")])
        let sink = try AppSink.make(name: EngineGraph.Lesson.audioSink)
        // sync=true: the sink releases audio at its running time, so pushes arrive in real time.
        try sink.configure(caps: courseware.format.caps, maxBuffers: 0, drop: false, sync: true)
        let courseware = self.courseware
        let logger = self.logger
        let token = try sink.onNewSample { sample in
            guard let samples = sample.buffer?.int16Samples(), !samples.isEmpty else { return }
            do { try courseware.push(samples) } catch { logger.warning("courseware push refused: \(error)") }
        }
        tokens.withLock { $0.append(token) }
        let chain = [
            selector,
            // Short: what it holds is heard before a track switch takes effect (1 s by default, measured).
            try ElementFactory.make("queue", name: EngineGraph.Lesson.audioQueue, properties: [
                "max-size-time": .time(.milliseconds(100)), "max-size-buffers": 0, "max-size-bytes": 0,
            ]),
            try ElementFactory.make("audioconvert", name: EngineGraph.Lesson.audioConvert),
            try ElementFactory.make("audioresample", name: EngineGraph.Lesson.audioResample),
            try ElementFactory.make("scaletempo", name: EngineGraph.Lesson.tempo, properties: ["stride": .int(Int64(EngineGraph.Lesson.tempoStride.milliseconds))]),
            try ElementFactory.make("audioconvert", name: EngineGraph.Lesson.audioConvertAfterTempo),
            try ElementFactory.make("audioresample", name: EngineGraph.Lesson.audioResampleAfterTempo),
            sink,
        ]
        try pipeline.addLinked(chain)
        for element in chain { try element.syncStateWithParent() }
        return selector
    }

    private func attach(_ chain: [Element], to pad: Pad) throws(GStreamerError) {
        try pipeline.addLinked(chain)
        if let first = chain.first { try pad.link(to: try first.staticPad("sink")) }
        for element in chain { try element.syncStateWithParent() }
    }
}
