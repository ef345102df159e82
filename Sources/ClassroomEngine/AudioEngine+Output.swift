import Foundation
import GStreamer

/// The output stream as the engine sees it: moving it to another device, whether it is up, where
/// it plays, taps on it, and finalising a WAV output.
extension AudioEngine {
    // MARK: Output

    /// Moves the output to another sound-server device without stopping: pulsesink moves its
    /// stream server-side when `device` changes (measured: no gap, no stall). No-op for other
    /// outputs; throws `notRunning` while the output stream is not up (see `outputStreamIsUp`).
    public func retargetOutput(device: String?) throws(EngineError) {
        guard output.isSoundServer else { return }
        guard outputStreamIsUp else { throw .notRunning }
        try EngineError.wrap { () throws(GStreamerError) in
            // nil asks for the server's default: PulseAudio's own routing decides.
            try outputSink.set("device", .string(device ?? ""))
        }
        logger.info("output retargeted", metadata: ["device": "\(device ?? "default")"])
    }

    /// True when the output's server stream exists and has not failed (see `OutputLink`): only then
    /// may pulsesink 1.22 be asked for `current-device` or `mute`, or moved.
    public var outputStreamIsUp: Bool {
        output.isSoundServer && isRunning && link.streamIsUp
    }

    /// The sound-server device the output stream is on now (pulsesink `current-device`); nil
    /// while the stream is not up, and for other outputs.
    public var currentOutputDevice: String? {
        guard outputStreamIsUp else { return nil }
        return (try? outputSink.string("current-device")) ?? nil
    }

    /// Whether the sound server has muted our output stream (role policies mute a corked stream
    /// server-side and unmute it when the interruption ends); nil while the stream is not up,
    /// and for other outputs. Asks the server.
    public var isOutputMutedByServer: Bool? {
        guard outputStreamIsUp else { return nil }
        return try? outputSink.bool("mute")
    }

    /// Calls `handler` with every buffer reaching the output sink (measurement, tests). Streaming thread; keep the token.
    public func tapOutput(_ handler: @escaping @Sendable (Buffer) -> Void) throws(EngineError) -> PadProbe? {
        let pad = try EngineError.wrap { () throws(GStreamerError) in try outputSink.staticPad("sink") }
        return pad.addProbe(.buffer) { info in
            if let buffer = info.buffer { handler(buffer) }
            return .ok
        }
    }

    /// Sends EOS into the WAV encoder only (the force-live mixer never ends) and waits for the file to be complete.
    func finalizeOutput() {
        guard let encoder = pipeline.element(named: EngineGraph.outputEncoder), let pad = try? encoder.staticPad("sink") else { return }
        let bus = pipeline.bus
        let sinkName = EngineGraph.outputSink
        let done = bus.waitForMessage(timeout: .seconds(2), after: {
            if let eos = try? Event.endOfStream() { pad.send(eos) }
        }) { message in
            if case .endOfStream = message.view { return true }
            return message.source == sinkName && { if case .endOfStream = message.view { return true }; return false }()
        }
        if done == nil { logger.warning("the WAV output did not confirm its end within 2 s; the file may lack its final header") }
    }
}
