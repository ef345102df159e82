import Foundation
import GStreamer
import PulseAudio

/// The output stream as the engine sees it: moving it to another device, whether it is up, where
/// it plays, taps on it, and finalising a WAV output.
extension AudioEngine {
    // MARK: Output

    /// Moves the output to another sound-server device without stopping: the server moves the
    /// stream (measured: no gap, no stall); nil moves it to the server's default sink. No-op for
    /// other outputs; throws `notRunning` while the output stream is not up.
    ///
    /// Moved by the engine's own sound-server client, not by pulsesink's `device`: pulsesink 1.22
    /// returns from a move with its main loop locked when the server killed the stream a moment
    /// before, and the mixer's next clock read then waits for ever (WORKAROUNDS §1).
    ///
    /// A move to a named device returns once the stream is there (pulsesink hears it from the
    /// server); one the server acknowledged and did not carry out is asked again, since
    /// pipewire-pulse 0.3.65 drops some (WORKAROUNDS §30).
    public func retargetOutput(device: String?) throws(EngineError) {
        guard output.isSoundServer else { return }
        guard isRunning, link.streamIsUp else { throw .notRunning }
        for attempt in 1...Self.moveAttempts {
            do {
                try soundServer.movePlaybackStream(where: EngineGraph.outputStreamKey, is: outputStreamID, to: device, within: Self.moveTimeout)
            } catch .streamNotFound {
                throw .notRunning   // connecting, or just killed: not up after all
            } catch {
                throw .outputNotMoved(device: device, reason: error.description)
            }
            guard let device else { break }   // the default sink: nothing to compare with by name
            if streamArrives(on: device) { break }
            guard attempt < Self.moveAttempts else {
                throw .outputNotMoved(device: device, reason: "the sound server acknowledged \(attempt) moves and carried out none; "
                                      + "the stream is on '\(currentOutputDevice ?? "no device")'")
            }
            movesAskedAgain.add(1, ordering: .relaxed)
            logger.warning("the sound server acknowledged the output's move and did not carry it out; asking again",
                           metadata: ["device": "\(device)", "attempt": "\(attempt + 1)"])
        }
        if let device { state.withLock { $0.outputDevice = device } }
        logger.info("output retargeted", metadata: ["device": "\(device ?? "default")"])
    }

    /// Whether the output stream reaches `device` within `moveConfirmation`; false at once when it stops being up.
    private func streamArrives(on device: String) -> Bool {
        let asked = ContinuousClock.now
        while ContinuousClock.now < asked + Self.moveConfirmation {
            guard link.streamIsUp else { return false }
            if currentOutputDevice == device {
                logger.debug("output move carried out", metadata: ["device": "\(device)", "after": "\(ContinuousClock.now - asked)"])
                return true
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// How long a move may take: a local server answers in milliseconds; one that does not in 2 s is not answering.
    static let moveTimeout = Duration.seconds(2)
    /// How long after its acknowledgement a move must show on the stream: the stream's own move
    /// event came within 7.2 ms on PipeWire 0.3.65 (median 5.5) and 0.3 ms on PulseAudio 16, in 60
    /// moves each (PulseRouteTests.everyMoveLands, CLASSROOM_AUDIO_TEST_LOG=debug).
    static let moveConfirmation = Duration.milliseconds(300)
    /// Moves asked before giving up: pipewire-pulse 0.3.65 dropped about 1 in 4 (WORKAROUNDS §30).
    static let moveAttempts = 4

    /// Waits until the sound server plays the output as fast as the clock runs: the newest buffer at
    /// the sink within the output latency + 100 ms of the running time for 600 ms, longer than it takes
    /// to fill the output buffer (at most 500 ms), after which a held stream stops taking buffers. A new stream
    /// on an idle null sink is held up to 2 s (WORKAROUNDS §17), and what inputs pushed meanwhile was
    /// dropped: start feeds after this. A silent input primes the mixer meanwhile: with no input the
    /// mixer sends gaps, which a held stream takes, and the hold came only with the first feed.
    /// Gives up after `timeout`, or once `keepWaiting` is false; returns whether the output plays.
    /// True at once for outputs without a server.
    public func waitUntilOutputPlays(within timeout: Duration, while keepWaiting: () -> Bool = { true }) -> Bool {
        guard output.isSoundServer else { return true }
        let primer: AudioInput
        do {
            primer = try addInput(id: Self.primerID, kind: .effects, format: EngineGraph.outputFormat)
        } catch {
            logger.warning("cannot prime the output stream to see whether the server plays it: \(error)")
            return false
        }
        defer { try? removeInput(id: Self.primerID) }
        let silence = [Int16](repeating: 0, count: EngineGraph.outputFormat.rate / 100 * EngineGraph.outputFormat.channels)
        let started = ContinuousClock.now
        let deadline = started + timeout
        var primed = Duration.zero
        var keptSince: ContinuousClock.Instant?
        while ContinuousClock.now < deadline, keepWaiting() {
            let now = ContinuousClock.now
            // 10 ms blocks in real time, 20 ms ahead, as a feed pushes them.
            while primed < now - started + .milliseconds(20) {
                _ = try? primer.push(silence)
                primed += .milliseconds(10)
            }
            if outputKeepsPace {
                let since = keptSince ?? now
                keptSince = since
                if now - since >= Self.paceHold {
                    // Only now does the server play the stream in real time, and it settles it from
                    // here: at 60 ms of latency an idle null sink underflowed 0.5 s after this, 6 s
                    // and more after the stream opened (2 of 5 player starts).
                    outputBuffer.settling()
                    return true
                }
            } else {
                keptSince = nil
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// True while the sink takes buffers as fast as the clock runs: its newest trails the running
    /// time by no more than the output latency and `paceTolerance`.
    var outputKeepsPace: Bool {
        guard let running = runningTime, let newest = link.newestBuffer else { return false }
        return running < newest + outputLatency + Self.paceTolerance
    }

    /// The silent input that primes the output while `waitUntilOutputPlays` waits.
    static let primerID = "output-primer"
    /// How far beyond the pipeline latency the sink's newest buffer may trail the clock and keep pace.
    /// PulseAudio's idle null sink settles a new stream's latency in steps (the sink's newest buffer
    /// 245, 166, 126 then 76 ms behind the clock at a 70 ms latency): past the held stage it takes
    /// buffers in real time, and inputs (200 ms queues) drop nothing.
    static let paceTolerance = ClockTime.milliseconds(100)
    /// How long the output must keep pace: the output buffer (30-200 ms, or up to 500 ms fixed) fills before a held stream blocks.
    static let paceHold = Duration.milliseconds(600)

    /// The sound-server device the output stream is on now (pulsesink `current-device`); nil
    /// while the stream is not up, and for other outputs.
    public var currentOutputDevice: String? {
        guard output.isSoundServer, isRunning else { return nil }
        return link.whileStreamIsUp { (try? outputSink.string("current-device")) ?? nil } ?? nil
    }

    /// Whether the sound server has muted our output stream (role policies mute a corked stream
    /// server-side and unmute it when the interruption ends); nil while the stream is not up,
    /// and for other outputs. Asks the server.
    public var isOutputMutedByServer: Bool? {
        guard output.isSoundServer, isRunning else { return nil }
        return link.whileStreamIsUp { try? outputSink.bool("mute") } ?? nil
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
