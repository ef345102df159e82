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
        let listener: MonitorListener
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
            let listener = try MonitorListener(device: device, name: EngineGraph.Monitor.witness, bounded: true, role: "production") { [weak self] samples in
                self?.record(samples)
            } onError: { [weak self, logger] message in
                logger.warning("cannot listen to what the sound server plays on '\(device)': \(message); 1032 is not watched there")
                self?.latest.withLock { $0 = nil }
            }
            listening.withLock { $0 = Listening(device: device, listener: listener) }
        } catch {
            logger.warning("cannot listen to what the sound server plays on '\(device)': \(error); 1032 is not watched there")
        }
    }

    /// Stops listening.
    func stop() {
        guard let old = listening.withLock({ state -> Listening? in defer { state = nil }; return state }) else { return }
        old.listener.stop()
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
