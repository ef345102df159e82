import Dispatch
import Foundation
import GStreamer
import Logging
import Synchronization

/// What the sound server really plays on the output's device: that device's monitor, measured in
/// a pipeline of its own, so the engine's graph, clock and latency are untouched. A sink muted or
/// at volume 0 on the server plays silence on its monitor (measured on PulseAudio 16: −inf dBFS
/// under a −14 dBFS stream) while the engine's own meter says it plays: that is 1032.
final class OutputWitness: Sendable {
    private struct Listening {
        let device: String
        let pipeline: Pipeline
        let samples: SignalHandler
        let errors: BusSubscription
    }

    /// One 100 ms window of what the monitor carried.
    private struct Window {
        var energy = 0.0
        var samples = 0
    }

    private let listening = Mutex<Listening?>(nil)
    /// The device last asked for: a monitor that failed to open is not retried until the device changes.
    private let asked = Mutex<String?>(nil)
    private let window = Mutex(Window())
    /// The RMS of the newest complete window, in dBFS, and when it ended (uptime ns).
    private let latest = Mutex<(rms: Double, at: UInt64)?>(nil)
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    deinit { stop() }

    /// The device whose monitor is listened to, if any.
    var device: String? { listening.withLock { $0?.device } }

    /// Listens to `device`'s monitor, or to nothing (nil). Restarts only when the device changed.
    func follow(device: String?) {
        guard asked.withLock({ asked in defer { asked = device }; return asked != device }) else { return }
        stop()
        guard let device else { return }
        do {
            let pipeline = try Pipeline(name: "output-witness")
            let source = try ElementFactory.make("pulsesrc", name: "output-witness-src", properties: [
                "device": .string("\(device).monitor"),
                "stream-properties": .string("props,media.role=production,application.name=classroom-audio"),
            ])
            let format = try ElementFactory.make("capsfilter", name: "output-witness-format",
                                                 properties: ["caps": .caps(AudioFormat(format: .s16, rate: 48_000, channels: 1).caps)])
            let sink = try AppSink.make(name: "output-witness-sink")
            try sink.configure(caps: nil, maxBuffers: 10, drop: true, sync: false)
            try pipeline.addLinked([source, try ElementFactory.make("audioconvert", name: "output-witness-convert"),
                                    try ElementFactory.make("audioresample", name: "output-witness-resample"), format, sink])
            let samples = try sink.onNewSample { [weak self] sample in
                guard let samples = sample.buffer?.int16Samples() else { return }
                self?.record(samples)
            }
            let errors = pipeline.bus.subscribe { [weak self, logger] message in
                guard case .error(let error, _) = message.view else { return }
                logger.warning("cannot listen to what the sound server plays on '\(device)': \(error.message); 1032 is not watched there")
                self?.latest.withLock { $0 = nil }
            }
            listening.withLock { $0 = Listening(device: device, pipeline: pipeline, samples: samples, errors: errors) }
            try pipeline.setState(.playing)
        } catch {
            logger.warning("cannot listen to what the sound server plays on '\(device)': \(error); 1032 is not watched there")
        }
    }

    /// Stops listening.
    func stop() {
        guard let old = listening.withLock({ state -> Listening? in defer { state = nil }; return state }) else { return }
        _ = try? old.pipeline.setState(.null)
        old.samples.disconnect()
        old.errors.cancel()
        latest.withLock { $0 = nil }
    }

    /// The RMS in dBFS of what the server played on the device in the newest 100 ms window, if
    /// that window ended within `freshness` before `now`.
    func level(now: UInt64 = DispatchTime.now().uptimeNanoseconds, freshness: ClockTime = .milliseconds(500)) -> Double? {
        latest.withLock { latest in
            guard let latest, now < latest.at + freshness.nanoseconds else { return nil }
            return latest.rms
        }
    }

    private func record(_ samples: [Int16]) {
        let done = window.withLock { window -> Double? in
            window.energy += samples.reduce(0.0) { $0 + Double($1) * Double($1) }
            window.samples += samples.count
            guard window.samples >= 4_800 else { return nil }
            defer { window = Window() }
            return 10 * log10(max(window.energy / Double(window.samples), 1e-3) / (32768.0 * 32768.0))
        }
        if let done { latest.withLock { $0 = (done, DispatchTime.now().uptimeNanoseconds) } }
    }
}
