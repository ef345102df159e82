import Dispatch
import GStreamer

/// The output buffer at work: the device's underruns heard, and the buffer raised while the class
/// plays (DESIGN §7: the latency a listener hears is the one the device can hold).
extension AudioEngine {
    /// Starts hearing the sound server's underruns of the output stream (once; sound-server outputs only).
    func watchUnderruns() {
        guard output.isSoundServer else { return }
        do {
            try underrunWatch.startWatching {
                try DebugLogWatch(category: "pulse", level: .warning, containing: "Got underflow", about: outputSink) { [weak self] in
                    // On PulseAudio's main loop thread, holding its lock: decide, and hand the work on.
                    self?.outputUnderran()
                }
            }
        } catch {
            logger.warning("output underruns will not be noticed: \(error)")
        }
    }

    private func outputUnderran() {
        guard let size = outputBuffer.underrun() else { return }
        // Not on PulseAudio's thread (the warning is logged there, under its main loop's lock), and not
        // at once: a server going away underflows its streams first; half a second later such a
        // stream has failed (its error came through the bus) and is left alone (WORKAROUNDS §28).
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(Self.reopenDelay.milliseconds))) { [weak self] in
            guard let self else { return }
            let current = outputBuffer.size
            guard size > current else {
                logger.warning("the output device underran; the output buffer stays \(current.milliseconds) ms (\(outputBuffer.setting))")
                eventObservers.notify(.outputUnderrun(buffer: current, underruns: outputBuffer.underruns))
                return
            }
            guard link.mayReopen else {
                outputBuffer.raised(to: size, made: false)
                return
            }
            raiseOutputBuffer(to: size)
        }
    }

    /// How long after an underrun the buffer is raised, if the stream still plays then.
    static let reopenDelay = ClockTime.milliseconds(500)

    /// Reopens the sink with a `size` buffer and the pipeline latency that covers it, on the
    /// streaming thread with the mixer held: a sink taken to READY under a running mixer returned
    /// FLUSHING to it and the mix stopped for good (measured); held, the reopen cost 81 ms of
    /// silence and the mix went on. A silent stream keeps the device busy from before the reopen
    /// until the new stream has played a while (`DeviceKeeper`). Says so once done.
    private func raiseOutputBuffer(to size: ClockTime) {
        guard let pad = try? outputSink.staticPad("sink"), let upstream = pad.peer else {
            outputBuffer.raised(to: size, made: false)
            return
        }
        let keeper = keepDeviceBusy(buffer: size)
        // A teardown that ran while the keeper started (the engine stopping) left nothing to reopen.
        guard link.mayReopen else {
            outputBuffer.raised(to: size, made: false)
            release(keeper, after: .zero)
            return
        }
        let probe = upstream.addProbe(.blockDownstream) { [weak self, weak keeper] info in
            guard let self, info.buffer != nil else { return .pass }
            let made = self.reopenOutput(buffer: size)
            self.outputBuffer.raised(to: size, made: made)
            self.underrunWatch.holdReopening(nil)
            self.release(keeper, after: Self.keeperOverlap)
            if made {
                self.logger.notice("the output device underran: output buffer raised to \(size.milliseconds) ms, latency \(self.outputLatency.milliseconds) ms")
                self.eventObservers.notify(.outputUnderrun(buffer: size, underruns: self.outputBuffer.underruns))
            }
            return .remove
        }
        guard let probe else {
            outputBuffer.raised(to: size, made: false)
            release(keeper, after: .zero)
            return
        }
        underrunWatch.holdReopening(probe)
    }

    /// Starts a silent stream on the device the output plays on, and waits (bounded) until the
    /// server plays it. Without one a lone stream's reopen left a PulseAudio null sink idle and the
    /// new stream was held 1.8 s, the mix with it (WORKAROUNDS §28). A keeper that does not play in
    /// time is given up: the reopen goes ahead as before.
    private func keepDeviceBusy(buffer size: ClockTime) -> DeviceKeeper? {
        let device = currentOutputDevice ?? state.withLock { $0.outputDevice }
        let keeper: DeviceKeeper
        do {
            keeper = try DeviceKeeper(device: device, buffer: size, mediaRole: configuration.mediaRole)
        } catch {
            logger.warning("the output reopens without a stream keeping its device busy: \(error)")
            return nil
        }
        guard keeper.start(within: Self.keeperStart) else {
            logger.warning("the output reopens without a stream keeping its device busy: the server did not play one within \(Self.keeperStart)",
                           metadata: ["device": "\(device ?? "default")"])
            return nil
        }
        // The watch is its one owner: a teardown that ran while it started (the engine stopping)
        // took nothing, so it is not kept then; anything else holds it weakly.
        let (kept, previous) = underrunWatch.adopt(keeper) { link.mayReopen }
        previous?.stop()
        guard kept else {
            keeper.stop()
            return nil
        }
        // Never left playing: a probe that never fires (the engine stopped meanwhile) releases nothing.
        release(keeper, after: Self.keeperLimit)
        return keeper
    }

    /// Stops `keeper` `delay` from now unless it is gone already (the reopened stream is on the device
    /// by then). Held weakly: a keeper the engine's teardown took is freed then, not when this fires
    /// (a test process that ended within `keeperLimit` of a raise reported its pipeline as leaked).
    private func release(_ keeper: DeviceKeeper?, after delay: ClockTime) {
        guard let keeper else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(delay.milliseconds))) { [weak self, weak keeper] in
            guard let keeper else { return }
            self?.underrunWatch.forget(keeper)
            keeper.stop()
        }
    }

    /// How long a keeper may take to be played: on a device with a stream, a new one is played at once.
    static let keeperStart = Duration.milliseconds(500)
    /// How long the keeper stays after the reopen: the new stream connects within it, and fills.
    static let keeperOverlap = ClockTime.seconds(1)
    /// The most a keeper plays, whatever happens to the reopen.
    static let keeperLimit = ClockTime.seconds(5)

    /// Takes the sink to READY, sets its buffer and the pipeline's latency, and lets it play again.
    /// False when the stream was not playing (corked, lost, being taken down) and nothing was touched.
    private func reopenOutput(buffer size: ClockTime) -> Bool {
        link.reopen { () -> Bool in
            do {
                _ = try outputSink.setState(.ready)
                try outputSink.set("buffer-time", .int(size.microseconds))
                tightenAlignment()
                // Safe in READY: with no server stream pulsesink unlocks its loop (WORKAROUNDS §1).
                if let device = state.withLock({ $0.outputDevice }) { try outputSink.set("device", .string(device)) }
                pipeline.configuredLatency = configuration.pipelineLatency(outputBuffer: size)
                try outputSink.syncStateWithParent()
                relaxAlignmentLater()
                return true
            } catch {
                logger.error("the output could not be reopened with a \(size.milliseconds) ms buffer: \(error)")
                return false
            }
        }
    }
}
