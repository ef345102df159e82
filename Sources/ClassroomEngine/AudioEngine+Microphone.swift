import ClassroomAudio
import Foundation
import GStreamer
import Synchronization

/// The microphone chain of the engine, which comes and goes with the leases that record, and the
/// echo-path estimator that keeps its canceller aligned.
extension AudioEngine {
    // MARK: Microphone

    /// The microphone chain, while it exists.
    public var uplink: Uplink? { state.withLock { $0.uplink } }

    /// Builds the microphone chain while playing: `source` → 10 ms framing → webrtcdsp (bound to
    /// this engine's echo probe, with `processing`) → level control → level → mute → `onFrame` (10 ms frames).
    public func connectMicrophone(_ source: MicrophoneSource, processing: VoiceProcessing,
                                  onFrame: @escaping @Sendable (UplinkFrame) -> Void) throws(EngineError) -> Uplink {
        try microphoneChange.withLock { _ throws(EngineError) -> Uplink in
            if let existing = uplink { return existing }
            let uplink = try EngineError.wrap { () throws(GStreamerError) in try makeUplink(source, processing: processing, onFrame: onFrame) }
            state.withLock { $0.uplink = uplink }
            logger.info("microphone connected", metadata: ["source": "\(source)", "processing": "\(processing)"])
            return uplink
        }
    }

    /// Tears the microphone chain down; the output chain is untouched.
    public func disconnectMicrophone() {
        microphoneChange.withLock { _ in tearDownMicrophone() }
    }

    private func tearDownMicrophone() {
        guard let uplink = state.withLock({ state -> Uplink? in defer { state.uplink = nil }; return state.uplink }) else { return }
        uplink.detachEchoPath()
        // Locked first, so a pipeline-wide state change cannot bring an element back up while it goes.
        for element in uplink.elements { element.isStateLocked = true }
        for element in uplink.elements.reversed() {
            do { try element.setState(.null) } catch { logger.warning("'\(element.name)' did not stop cleanly: \(error)") }
        }
        for element in uplink.elements { try? pipeline.remove(element) }
        logger.info("microphone disconnected", metadata: ["frames": "\(uplink.framesDelivered)"])
    }

    func makeUplink(_ source: MicrophoneSource, processing: VoiceProcessing,
                            onFrame: @escaping @Sendable (UplinkFrame) -> Void) throws(GStreamerError) -> Uplink {
        var head: [Element] = []
        var pushed: AppSource?
        var decoder: Element?
        switch source {
        case .device(let name):
            var properties: ElementProperties = ["stream-properties": .string("props,media.role=phone,application.name=classroom-audio")]
            if let name { properties.append("device", .string(name)) }
            head = [try ElementFactory.make("pulsesrc", name: EngineGraph.micSource, properties: properties)]
        case .file(let path):
            let uri = URL(fileURLWithPath: path).standardizedFileURL.absoluteString
            let decode = try ElementFactory.make("uridecodebin", name: EngineGraph.micSource, properties: ["uri": .string(uri)])
            decoder = decode
        case .pushed:
            let app = try AppSource.make(name: EngineGraph.micSource)
            try app.configure(audio: EngineGraph.uplinkFormat, isLive: true, doTimestamp: false,
                              limits: .init(time: .seconds(1)), whenFull: .dropOldest)
            pushed = app
            head = [app]
        }
        // Files and pushed samples resync at half a frame: by default a lost buffer shifted every later
        // timestamp 10 ms (WORKAROUNDS §8). A device flags its own losses (DISCONT) and keeps the defaults.
        var splitProperties: ElementProperties = ["output-buffer-duration": .string("1/100")]
        if !source.isDevice {
            splitProperties.append("alignment-threshold", .uint64(EngineGraph.frameDuration.nanoseconds / 2))
            splitProperties.append("discont-wait", .uint64(0))
        }
        let split = try ElementFactory.make("audiobuffersplit", name: EngineGraph.micSplit, properties: splitProperties)
        let dsp = try ElementFactory.make("webrtcdsp", name: EngineGraph.voiceDSP, properties: ["probe": .string(probeName)])
        try processing.apply(to: dsp)
        let mute = try ElementFactory.make("volume", name: EngineGraph.uplinkMute)
        let sink = try AppSink.make(name: EngineGraph.uplinkSink)
        try sink.configure(caps: EngineGraph.uplinkFormat.caps, maxBuffers: 100, drop: true, sync: false)
        // Not async: one added to a playing pipeline makes it redo PAUSED→PLAYING (WORKAROUNDS §10).
        try sink.set("async", false)
        // Files and pushed samples wait until the probe holds their far end; devices do not (WORKAROUNDS §9).
        // Each frame waits, after the framer: paced before it, a remainder from a push that was not a
        // whole frame made every later frame wait for the next push, 10 ms more (#21 item 6, WORKAROUNDS §37).
        let pace = try ElementFactory.make("clocksync", name: EngineGraph.micPace, properties: ["ts-offset": .int(Int64(echoReferenceWait.nanoseconds)),
                                                                                        "sync": .bool(!source.isDevice)])
        let body: [Element] = [
            try ElementFactory.make("audioconvert", name: EngineGraph.micConvert),
            try ElementFactory.make("audioresample", name: EngineGraph.micResample),
            try ElementFactory.make("capsfilter", name: EngineGraph.micFormat, properties: ["caps": .caps(EngineGraph.uplinkFormat.caps)]),
            split, pace,
            // What the student's microphone captured, for 1031: the DSP's output is quiet whenever it cancels an echo.
            try ElementFactory.make("level", name: EngineGraph.micCaptureLevel, properties: ["interval": .time(configuration.levelInterval)]),
            dsp,
            try ElementFactory.make("level", name: EngineGraph.micLevel, properties: ["interval": .time(configuration.levelInterval)]),
            mute, sink,
        ]
        let all = head + (decoder.map { [$0] } ?? []) + body
        try pipeline.add(all)
        // The decoder's pad appears later and is linked by the pad-added handler.
        try Element.link(head + body)

        var tokens: [any AnyObject & Sendable] = []
        if let decoder, let first = body.first {
            let pipeline = self.pipeline
            tokens.append(decoder.onPadAdded { pad in
                guard pad.queryCaps().structure()?.name.hasPrefix("audio/") == true,
                      let sinkPad = try? first.staticPad("sink"), !sinkPad.isLinked else { return }
                // The file starts now: shift its timestamps to the engine's running time.
                pad.offset = Int64(pipeline.currentRunningTime?.nanoseconds ?? 0)
                try? pad.link(to: sinkPad)
            })
        }
        // The framer counts its frame as latency (audiobuffersplit adds its `output-buffer-duration`), and clocksync
        // waits that long on top of its offset; the wait already runs from the frame's first sample, so the
        // pacing is told the latency before the framer.
        if let answer = try split.answerLatency(adding: { .zero }) { tokens.append(answer) }
        let uplink = Uplink(source: source, pushedInput: pushed, elements: all, dsp: dsp, feed: pace, mute: mute,
                            sink: sink, processing: processing, compensation: echoPathCompensation, tokens: tokens,
                            report: { [weak self] event in self?.eventObservers.notify(event) })
        if echoPathCompensation > .zero { try uplink.setEchoPathCompensation(echoPathCompensation) }
        // webrtcdsp stamps its output with running time and passes the source's segment on: behind it
        // a file's segment, which ends where the file does, made the mute drop every frame (WORKAROUNDS §33).
        if let segment = try dsp.staticPad("src").addRunningTimeSegment() { uplink.keep(segment) }
        // webrtcdsp restamps its output with running time, which the compensation moved earlier.
        let frameToken = try sink.onNewSample { [weak uplink] sample in
            guard let buffer = sample.buffer, let uplink else { return }
            uplink.countFrame()
            let compensation = uplink.echoPathCompensation
            onFrame(UplinkFrame(samples: buffer.int16Samples(), timestamp: buffer.pts.map { $0 + compensation }))
        }
        uplink.keep(frameToken)
        try controlLevel(of: uplink)
        if processing.echoCancel { try watchEchoPath(of: uplink) }
        // A file's decoder starts last, so it cannot push into a stopped element; a capture device
        // keeps the source-first order the room rig was measured in (WORKAROUNDS §16).
        if source.isDevice {
            for element in all { try element.syncStateWithParent() }
        } else {
            try Element.syncStatesWithParent(all)
        }
        return uplink
    }

    /// Runs the uplink's level control on the DSP's output frames (by capture time: the DSP restamps
    /// with running time, which the compensation moved earlier), and tells it when the far end plays.
    /// Both taps stay until the chain goes; with the control off they touch nothing.
    func controlLevel(of uplink: Uplink) throws(GStreamerError) {
        let gain = uplink.gainControl
        // Read per buffer: an output underrun raises it while the chain runs.
        let latency: @Sendable () -> ClockTime = { [configuration, outputBuffer] in configuration.pipelineLatency(outputBuffer: outputBuffer.size) }
        let gainTap = try uplink.dsp.staticPad("src").addSampleRewriter(when: { gain.isEnabled }) { [weak uplink] samples, pts in
            gain.process(samples, captureTime: pts.map { $0 + (uplink?.echoPathCompensation ?? .zero) })
        }
        let farTap = try probe.staticPad("sink").addProbe(.buffer) { info in
            if let buffer = info.buffer, let pts = buffer.pts { gain.recordFarEnd(buffer, playTime: pts + latency(), duration: buffer.duration ?? .zero) }
            return .ok
        }
        uplink.attachLevelControl(taps: [gainTap, farTap].compactMap { $0 })
    }

    /// Taps the far end (by play time) and the microphone (by capture time) for the echo-path
    /// estimator, and moves the DSP's compensation to each delay it settles on.
    func watchEchoPath(of uplink: Uplink) throws(GStreamerError) {
        let latency: @Sendable () -> ClockTime = { [configuration, outputBuffer] in configuration.pipelineLatency(outputBuffer: outputBuffer.size) }
        let estimator = EchoPathEstimator { [weak self, weak uplink] estimate in
            guard let self, let uplink else { return }
            self.apply(estimate, to: uplink)
        }
        let channels = EngineGraph.outputFormat.channels
        // The mix's timestamps are running time; it plays `latency` later.
        let farTap = try probe.staticPad("sink").addProbe(.buffer) { info in
            if let buffer = info.buffer, let pts = buffer.pts {
                estimator.recordFarEnd(buffer.int16Samples(), channels: channels, playTime: pts + latency())
            }
            return .ok
        }
        // Before the DSP and its pad offset: the capture timestamps as they are.
        let micTap = try uplink.feed.staticPad("src").addProbe(.buffer) { info in
            if let buffer = info.buffer, let pts = buffer.pts {
                estimator.recordMicrophone(buffer.int16Samples(), channels: 1, captureTime: pts,
                                            discontinuity: buffer.flags.contains(.discont))
            }
            return .ok
        }
        uplink.attach(estimator, taps: [farTap, micTap].compactMap { $0 })
    }

    /// Moves the canceller's compensation to `estimate` where the canceller needs it (`compensation(for:current:on:)`),
    /// and tells the observers.
    func apply(_ estimate: EchoPathEstimate, to uplink: Uplink) {
        let compensation = Self.compensation(for: estimate.delay, current: uplink.echoPathCompensation, on: Platform.current.echoCanceller)
        do {
            try uplink.setEchoPathCompensation(compensation)
        } catch {
            logger.warning("could not move the echo canceller to the measured echo path: \(error)")
            return
        }
        uplink.gainControl.setEchoPath(estimate.delay)
        logger.info("echo path", metadata: ["delay": "\(estimate.delay)", "confidence": "\(estimate.confidence)",
                                            "compensation": "\(compensation)"])
        echoPathObservers.notify(estimate)
    }

    /// The compensation for a measured echo `path`. AEC1 cancels about 5–50 ms past the compensation, so
    /// every path is centred there, 25 ms above it (WORKAROUNDS §12). AEC3 finds the path itself within its
    /// delay search past the compensation and has to find it again after every move, so the compensation
    /// stays while the path lies in that search (less the linear filter's 52 ms and a margin), and is
    /// centred like AEC1's only for a path outside it.
    static func compensation(for path: ClockTime, current: ClockTime, on canceller: Platform.EchoCanceller?) -> ClockTime {
        let margin = ClockTime.milliseconds(25)
        if let search = canceller?.delaySearch, path >= current,
           path.nanoseconds - current.nanoseconds + ClockTime.milliseconds(60).nanoseconds <= search.nanoseconds {
            return current
        }
        return path > margin ? ClockTime(nanoseconds: path.nanoseconds - margin.nanoseconds) : .zero
    }

    /// Calls `handler` with every echo path the estimator settles on (its own queue); keep the token.
    public func observeEchoPath(_ handler: @escaping @Sendable (EchoPathEstimate) -> Void) -> ObservationToken {
        echoPathObservers.add(handler)
    }

    /// The echo path in force on the microphone chain; nil without one, or before the estimator settled.
    public var echoPath: EchoPathEstimate? { uplink?.echoPath }
}
