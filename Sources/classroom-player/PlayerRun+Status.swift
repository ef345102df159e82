import ClassroomAudio
import ClassroomEngine
import Foundation
import GStreamer

/// Reading the run into one `RunStatus` (the `status` verb, MPRIS and the metrics read it), and
/// the progress line drawn from the same reading.
extension PlayerRun {
    // MARK: Status and progress

    /// The run now, read once.
    func readStatus() -> RunStatus {
        let (lesson, lessonState, lessonURI) = state.withLock { ($0.lesson, $0.lessonState, $0.lessonURI) }
        let chain = controller.engine.uplink
        return RunStatus(
            elapsed: events.elapsed,
            lesson: .init(state: lessonState, position: lesson?.position, duration: lesson?.duration, uri: lessonURI),
            peers: peers.status, room: room?.status ?? .null,
            sender: uplink.map { .init(destinations: $0.destinations.map(\.description), frames: $0.framesSent, dropped: $0.framesDropped, resyncs: $0.resyncs) },
            resolved: controller.session.resolvedState, session: controller.session.state, ducks: sessionCommands.duckOwners,
            microphone: chain.map { .init(source: $0.source.description, echoPath: controller.engine.echoPath, frames: $0.framesDelivered, muted: $0.isMuted,
                                          gainDB: $0.gain) },
            output: .init(buffer: controller.engine.outputBuffer.size, latency: controller.engine.outputLatency, underruns: controller.engine.outputBuffer.underruns),
            outputDB: meter.latest(EngineGraph.outputLevel), micDB: meter.latest(EngineGraph.micLevel),
            micCaptureDB: meter.latest(EngineGraph.micCaptureLevel))
    }

    /// The `status` answer's fields.
    func status() -> [(String, JSON)] { readStatus().fields }

    func startProgress() {
        let timer = DispatchSourceToken.repeating(every: .milliseconds(500), after: .milliseconds(200), on: .global(qos: .utility)) { [weak self] in
            guard let self else { return }
            self.console.progress(self.readStatus().progressLine)
        }
        state.withLock { $0.timers.append(timer) }
    }
}
