import Foundation
import GStreamer

/// The engine's inputs: the courseware, RTC peers and effects, each an appsrc branch into the mixer,
/// added and removed while playing.
extension AudioEngine {
    // MARK: Inputs

    /// Adds an input in `format` and mixes it from now on (also while playing).
    public func addInput(id: String, kind: AudioInput.Kind, format: AudioFormat) throws(EngineError) -> AudioInput {
        guard format.interleaved, [1, 2].contains(format.channels), (8_000...192_000).contains(format.rate) else {
            throw .unsupportedFormat(format, reason: "inputs must be interleaved mono or stereo between 8 and 192 kHz")
        }
        if state.withLock({ $0.inputs[id] != nil }) { throw .duplicateInput(id) }
        let input = try EngineError.wrap { () throws(GStreamerError) in try makeInput(id: id, kind: kind, format: format) }
        state.withLock { $0.inputs[id] = input }
        logger.info("input added", metadata: ["input": "\(id)", "kind": "\(kind.rawValue)", "format": "\(format)"])
        return input
    }

    /// Adds an RTC participant's input: what the RTC SDK pushes decoded PCM into.
    public func addRTCInput(id: String, format: AudioFormat) throws(EngineError) -> AudioInput {
        try addInput(id: id, kind: .rtc, format: format)
    }

    /// Removes an input while playing; later pushes to it are refused with `inputRemoved`.
    public func removeInput(id: String) throws(EngineError) {
        guard let input = state.withLock({ $0.inputs.removeValue(forKey: id) }) else { throw .unknownInput(id) }
        input.markRemoved()
        try EngineError.wrap { () throws(GStreamerError) in
            // The recipe measured gapless (GSTREAMER-NOTES §2): unlink, stop the branch, and only
            // then release the mixer's pad. What the source still pushes once unlinked is dropped:
            // not-linked was its error (3 in 40 removals of a pushing input; the start-up primer's end).
            let end = try input.elements.last?.staticPad("src")
            let dropping = end?.addProbe([.buffer, .bufferList]) { _ in .drop }
            defer { withExtendedLifetime(dropping) {} }
            _ = end?.unlink(from: input.mixerPad)
            for element in input.elements { element.isStateLocked = true }
            // All stopped before any is removed: removing one unlinks it, and an element upstream
            // still playing then pushed into nothing (not-linked again, 1 in 200).
            for element in input.elements.reversed() { try element.setState(.null) }
            for element in input.elements.reversed() { try pipeline.remove(element) }
            mixer.releaseRequestPad(input.mixerPad)
        }
        logger.info("input removed", metadata: ["input": "\(id)"])
    }

    /// The inputs being mixed.
    public var inputs: [AudioInput] { state.withLock { Array($0.inputs.values) } }

    /// The input called `id`.
    public func input(id: String) -> AudioInput? { state.withLock { $0.inputs[id] } }

    func makeInput(id: String, kind: AudioInput.Kind, format: AudioFormat) throws(GStreamerError) -> AudioInput {
        let source = try AppSource.make(name: EngineGraph.Input.source(id))
        // Live, timestamped by AudioInput: a push plays `pipelineLatency` later. Bounded in bytes, since
        // appsrc's queued time trails what is queued (WORKAROUNDS §15).
        let queueBytes = Int(configuration.inputQueue.nanoseconds * UInt64(format.rate) / 1_000_000_000) * format.bytesPerFrame
        try source.configure(audio: format, isLive: true, doTimestamp: false,
                             limits: .init(bytes: queueBytes), whenFull: .dropOldest)
        var elements: [Element] = [
            source,
            try ElementFactory.make("audioconvert", name: EngineGraph.Input.convert(id)),
            try ElementFactory.make("audioresample", name: EngineGraph.Input.resample(id)),
            // The mixer converts channels and format but not rate.
            try ElementFactory.make("capsfilter", name: EngineGraph.Input.format(id), properties: ["caps": .caps(EngineGraph.outputFormat.caps)]),
        ]
        var duck: VolumeControl?
        if kind == .courseware {
            // The courseware's own level, before ducking: the mediaSuppressed monitor compares it with the output.
            elements.append(try ElementFactory.make("level", name: EngineGraph.Input.level(id), properties: ["interval": .time(configuration.levelInterval)]))
            let control = try VolumeControl(name: EngineGraph.Input.duck(id), initial: 1.0)
            elements.append(control.element)
            duck = control
        }
        try pipeline.addLinked(elements)
        let pad = try mixer.requestPad("sink_%u")
        guard let last = elements.last else { throw .failed("empty input branch") }
        try last.staticPad("src").link(to: pad)
        for element in elements { try element.syncStateWithParent() }
        // Weak: whoever keeps an input (a room's audio watch, for seconds after a leave) does not keep the
        // whole pipeline past the engine's end; a CI quick pass reported it leaked at exit.
        return AudioInput(id: id, kind: kind, format: format, source: source, elements: elements, mixerPad: pad, duck: duck,
                          jitterTolerance: configuration.pushTolerance,
                          // The lesson's scaletempo swings its content around its timestamps by up to a stride.
                          burst: kind == .courseware ? EngineGraph.Lesson.tempoStride : .zero, realtime: realtime, clock: { [weak pipeline] in pipeline?.currentRunningTime })
    }
}
