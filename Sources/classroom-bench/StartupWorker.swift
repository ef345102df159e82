import ArgumentParser
import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Synchronization

/// From a fresh process: initialise GStreamer, build and start the engine, add an RTC input
/// whose feed is already running, and report when the first audible buffer plays at the output.
struct StartupWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "startup", abstract: "Startup to first audio out.")

    struct Outcome: Codable {
        /// CLOCK_MONOTONIC ns at which the first audible buffer is due at the output sink.
        var firstAudioAt: UInt64
    }

    func run() async throws {
        let engine = try WorkerSetup.headlessEngine("startup")
        defer { engine.stop() }
        let input = try engine.addRTCInput(id: "rtc-teacher", format: AudioFormat(format: .s16, rate: 48_000, channels: 1))
        let clock = try Clock.system()
        let latch = MomentLatch()
        latch.arm()
        let firstPTS = FirstAudible()
        let tap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts, buffer.int16Samples().contains(where: { abs(Int($0)) > 1_000 }) else { return }
            if firstPTS.set(pts) { latch.mark() }
        }
        defer { tap?.remove() }
        let frame = (0..<480).map { Int16(8_000 * sin(2 * Double.pi * 500 * Double($0) / 48_000)) }
        let feeder = RealTimeFeeder { _ in _ = try? input.push(frame) }
        defer { feeder.stop() }
        guard await latch.wait(timeout: .seconds(10)) != nil, let pts = firstPTS.value, let running = engine.runningTime else {
            throw BenchError("no audio reached the output within 10 s")
        }
        // The sink (sync=true) plays it at base time + running time + the pipeline latency.
        let base = clock.time - running
        let due = base + pts + engine.outputLatency
        print(String(decoding: try JSONEncoder().encode(Outcome(firstAudioAt: due.nanoseconds)), as: UTF8.self))
    }
}

/// The running time of the first audible output buffer, set once from the streaming thread.
private final class FirstAudible: Sendable {
    private let stored = Mutex<ClockTime?>(nil)

    /// Stores `pts` if nothing is stored yet; true when it did.
    func set(_ pts: ClockTime) -> Bool { stored.withLock { if $0 == nil { $0 = pts; return true }; return false } }

    var value: ClockTime? { stored.withLock { $0 } }
}
