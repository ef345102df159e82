import GStreamer

/// What the engine's bus says, as engine events.
extension AudioEngine {
    /// Turns one bus message into the engine event observers get, if it is one; keeps the
    /// latency distributed.
    func handle(_ message: Message) {
        let event: EngineEvent?
        switch message.view {
        case .latency:
            // The echo probe reads the latency from the LATENCY event: keep it distributed.
            pipeline.recalculateLatency()
            event = nil
        case .error(let error, let debug):
            logger.error("\(message.source ?? "?"): \(error.message)", metadata: ["debug": "\(debug ?? "")"])
            if message.source == EngineGraph.outputSink {
                guard link.sinkFailed() else { return }   // the dead stream's, from before a restart
                event = .outputLost(error.message)
            } else {
                event = .error(element: message.source ?? "?", message: error.message, debug: debug)
            }
        case .warning(let error, _):
            event = .warning(element: message.source ?? "?", message: error.message)
        case .requestState(let requested):
            event = message.source == EngineGraph.outputSink ? .outputStateRequested(requested) : nil
        case .application(let structure) where structure.name == Self.restartMarker:
            link.staleErrorsPassed()
            event = nil
        case .element(let structure) where structure.name == "level":
            guard let rms = structure.doubles("rms"), let peak = structure.doubles("peak") else { return }
            event = .level(meter: message.source ?? "?", rms: rms, peak: peak, runningTime: structure.clockTime("running-time"))
        default:
            event = nil
        }
        guard let event else { return }
        eventObservers.notify(event)
    }
}
