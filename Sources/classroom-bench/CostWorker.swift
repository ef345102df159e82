import ArgumentParser
import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer

/// The engine running the graph of pipelines/engine-<profile>.gst for 10 s of audio, with the
/// same stand-in sources pumped into its inputs; the parent reads this process's rusage.
struct CostWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cost", abstract: "The engine graph of one profile for 10 s of audio.")

    @Option(help: "media or voice")
    var profile: String

    func run() async throws {
        guard profile == "media" || profile == "voice" else { throw ValidationError("the profile is media or voice") }
        let engine = try WorkerSetup.headlessEngine("cost")
        defer { engine.stop() }
        let stereo = EngineGraph.outputFormat
        let mono = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        // The stand-ins of pipelines/engine-media.gst, element for element.
        let courseware = try engine.addInput(id: "courseware", kind: .courseware, format: stereo)
        let rtc = try engine.addRTCInput(id: "rtc-src", format: mono)
        let effects = try engine.addInput(id: "effects", kind: .effects, format: mono)
        var pumps = [
            try SignalPump("audiotestsrc is-live=true num-buffers=1000 samplesperbuffer=480 wave=sine freq=440 volume=0.2", into: courseware, format: stereo),
            try SignalPump("audiotestsrc is-live=true num-buffers=1000 samplesperbuffer=480 wave=sine freq=330 volume=0.2", into: rtc, format: mono),
            try SignalPump("audiotestsrc is-live=true num-buffers=300 samplesperbuffer=480 wave=ticks tick-interval=500000000 volume=0.2", into: effects, format: mono),
        ]
        if profile == "voice" {
            // engine-voice.gst's microphone: quiet pink noise at 44.1 kHz in 5.8 ms periods.
            let uplink = try engine.connectMicrophone(.pushed, processing: .voice) { _ in }
            guard let mic = uplink.pushedInput else { throw BenchError("the pushed microphone has no input") }
            let timeline = ContiguousTimeline(start: engine.runningTime ?? .zero)
            pumps.append(try SignalPump("audiotestsrc is-live=true num-buffers=1723 samplesperbuffer=256 wave=pink-noise volume=0.02 ! audio/x-raw,rate=44100,channels=1",
                                        format: EngineGraph.uplinkFormat) { samples in
                (try? mic.push(samples, pts: timeline.next(frames: samples.count, rate: 48_000))) != nil
            })
        }
        // The gst-launch graph ends after 1000 mixer blocks plus its latency.
        let end = (engine.runningTime ?? .zero) + .milliseconds(10_100)
        while (engine.runningTime ?? .zero) < end { try await Task.sleep(for: .milliseconds(20)) }
        pumps.forEach { $0.stop() }
        print(#"{"done":true}"#)
    }
}
