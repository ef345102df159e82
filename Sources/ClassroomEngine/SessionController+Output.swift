import ClassroomAudio
import Dispatch
import Foundation
import GStreamer

/// The controller's side of the output link: it moves the stream to the route's device, turns the
/// server's cork into an interruption, and on a loss suspends, watches and restarts until the
/// output plays again. The link holds where the stream is; the session holds the interruption.
extension SessionController {
    // MARK: Moves

    /// How long after its device went away the output stream is left alone: the server has
    /// either moved it (rescue) or killed it, and pulsesink reports a kill within a few 10 ms blocks.
    static let removalSettle: DispatchTimeInterval = .milliseconds(150)

    /// Moves the output to `device`; after its device went away, only once the server's rescue or
    /// kill shows, since moving a killed stream wedges pulsesink (WORKAROUNDS §5).
    func retarget(to device: String?, leaving previous: String?) {
        if let previous, !session.state.devices.contains(where: { $0.id == previous }) {
            // Nothing left to play on: the server killed the stream without a word; recovery rebuilds it.
            guard device != nil else {
                deviceLost("the output device '\(previous)' went away and there is no other")
                return
            }
            queue.asyncAfter(deadline: .now() + Self.removalSettle) { [weak self] in self?.move(to: device, attempt: 0) }
        } else {
            move(to: device, attempt: 0)
        }
    }

    /// Moves the output stream once it is up (it connects in the first 10 ms blocks after start or
    /// restart), as long as the route still wants `device`; gives up after 5 s or when the output is lost.
    func move(to device: String?, attempt: Int) {
        guard !engine.link.isLost, session.resolvedState.route.output?.deviceID == device else { return }
        // notRunning: the stream is not up yet (connecting), or was just killed; try again shortly.
        do {
            try engine.retargetOutput(device: device)
        } catch .notRunning {
            if attempt < 100 {
                queue.asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self] in self?.move(to: device, attempt: attempt + 1) }
            } else {
                logger.warning("the output stream did not come up in 5 s; it stays where the server put it", metadata: ["wanted": "\(device ?? "default")"])
            }
        } catch {
            logger.warning("output not moved to \(device ?? "default"): \(error)")
        }
    }

    // MARK: Cork

    /// The server corked our stream (and mutes it): an interruption, once.
    func serverCorked() {
        if engine.link.cork() { session.beginInterruption(.soundServerCorked) }
    }

    /// The server gave the stream back (an uncork request, or it unmuted us): the interruption ends.
    func endServerCork() {
        guard engine.link.uncork() else { return }
        _ = session.endInterruption(.soundServerCorked, shouldResume: true)
    }

    // MARK: Sound server loss and return

    /// The output failed. For a sound-server output that is either the server gone (or refusing
    /// us) or, when it still answers, the server ending our stream because its last device went
    /// away: asked off the queue, then judged on it.
    func outputLost(_ why: String) {
        guard !engine.link.isLost else { return }
        // A WAV file that cannot be written (a full disk) is no lost sound server: no media-services
        // interruption; the `outputLost` event tells the integrator, who decides.
        guard engine.output.isSoundServer else {
            logger.error("output lost: \(why)")
            return
        }
        let server = engine.soundServer
        DispatchQueue.global().async { [weak self] in
            // A server that answers killed the stream itself: pulsesink says so at its next write, often
            // before the device watch hears the device go (it wrote nothing while the mix was silence).
            let answers = (try? server.serverName(within: Self.serverCheck)) != nil
            self?.queue.async { [weak self] in
                guard let self else { return }
                if answers {
                    deviceLost("the sound server ended the output stream (\(why)): its device went away and there is no other")
                } else {
                    serverLost(why)
                }
            }
        }
    }

    /// How long a sound server that still lives takes at most to answer (a local connection: milliseconds).
    static let serverCheck = Duration.milliseconds(500)

    /// The sound server is gone (or refuses us): media services are lost (an interruption: lesson
    /// paused, uplink muted), the microphone and the device watch go with it, and `checkAlarms`
    /// tries to bring everything back.
    private func serverLost(_ why: String) {
        guard engine.link.lose(.server) else { return }
        logger.error("output lost: \(why)")
        let monitor = state.withLock { state -> DeviceMonitor? in
            defer { state.deviceMonitor = nil }
            return state.deviceMonitor
        }
        monitor?.stop()
        engine.disconnectMicrophone()
        session.mediaServicesWereLost()
    }

    /// The last output device went away (the server lives): the engine is suspended — pushes are
    /// refused, not queued into a dead stream — and an interruption runs until a device returns.
    func deviceLost(_ why: String) {
        guard engine.link.lose(.device) else { return }
        logger.error("output lost: \(why)")
        do { try engine.suspend() } catch { logger.warning("suspending the engine: \(error)") }
        session.beginInterruption(.deviceLost)
    }

    /// While the output is lost, every 250 ms: when a device monitor sees the server's sinks again,
    /// the engine restarts on it, the monitor becomes the device watch and media services are reset
    /// (the interruption ends; the lesson resumes; the microphone reopens if a lease records).
    func tryRecovery() {
        guard let (kind, lostAt) = engine.link.recoveryAttempt(every: 250_000_000) else { return }
        if kind == .device {
            // The device watch still runs: the session knows when a device is back.
            guard session.currentRoute.output != nil else { return }
            do { try engine.restart() } catch {
                logger.warning("an output device is back, but the output does not play yet: \(error)")
                return
            }
            recovered(lostAt: lostAt)
            _ = session.endInterruption(.deviceLost, shouldResume: true)
            return
        }
        guard let monitor = try? DeviceMonitor.audio(), (try? monitor.start()) != nil else { return }
        let serverIsBack = monitor.devices.contains { $0.isAudioSink && DeviceBridge.audioDevice($0) != nil }
        monitor.stop()
        guard serverIsBack else { return }
        do {
            try engine.restart()
            try watch(monitor)
        } catch {
            logger.warning("the sound server answers again, but the output does not play yet: \(error)")
            return
        }
        recovered(lostAt: lostAt)
        session.mediaServicesWereReset()
    }

    /// The output plays again (the link is recovering): the loss is over.
    func recovered(lostAt: UInt64) {
        // The restarted stream went to the server's default sink, which need not be the route's
        // (it stays the Dummy Output after the last real sink came back).
        if engine.output.isSoundServer { move(to: session.resolvedState.route.output?.deviceID, attempt: 0) }
        let outage = Double(DispatchTime.now().uptimeNanoseconds - lostAt) / 1e9
        logger.notice("output recovered", metadata: ["after": "\(String(format: "%.2f s", outage))"])
    }
}
