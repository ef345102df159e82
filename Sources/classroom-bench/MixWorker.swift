import ArgumentParser
import ClassroomEngine
import ClassroomMeasurement
import Foundation
import GStreamer
import Synchronization

/// N RTC inputs mixed in real time (started pinned to one core by the parent): a feeder thread
/// pushes one 10 ms frame into every input every 10 ms, as an RTC SDK would; every input carries
/// the same 500 Hz sine, timestamped on one grid, so the mix of a block with every input in it
/// has exactly the level of N × the sine, and a block missing any input is quieter.
struct MixWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mix", abstract: "N RTC inputs mixed in real time.")

    struct Outcome: Codable {
        var cpuSeconds: Double
        var wallSeconds: Double
        /// 10 ms blocks the run should have produced in its measured window.
        var expectedBlocks: Int
        /// Blocks that reached the output in that window.
        var blocks: Int
        /// Blocks within 0.1 dB of the full mix (every input present).
        var fullBlocks: Int
        var droppedPushes: Int
        var lateTicks: Int
    }

    @Option(help: "How many RTC inputs.")
    var inputs: Int

    @Option(help: "Seconds to run.")
    var seconds: Double = 5

    func run() async throws {
        let engine = try WorkerSetup.headlessEngine("mix")
        defer { engine.stop() }
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let feeds = try (0..<inputs).map { try engine.addRTCInput(id: "rtc-\($0)", format: format) }
        // 5 whole periods per frame: every frame is the same and the sine continues across frames.
        let amplitude = 0.8 / Double(inputs)
        let frame = (0..<480).map { Int16((amplitude * 32_767 * sin(2 * Double.pi * 500 * Double($0) / 48_000)).rounded()) }
        let expected = 20 * log10(0.8 / 2.0.squareRoot())
        guard let now = engine.runningTime else { throw BenchError("the engine has no running time") }
        let origin = now + .milliseconds(20)
        let measured = (origin + .milliseconds(500))..<(origin + .seconds(seconds - 0.2))
        let blocks = BlockLevels(window: measured, expected: expected)
        let tap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts else { return }
            blocks.record(pts: pts, samples: buffer.int16Samples())
        }
        defer { tap?.remove() }

        let cpuBefore = ProcessMeters.cpuSeconds()
        let wallBefore = ProcessMeters.monotonicNanoseconds()
        let feeder = RealTimeFeeder(count: Int(seconds * 100)) { tick in
            let pts = origin + .milliseconds(10 * tick)
            for feed in feeds { _ = try? feed.push(frame, timestamp: pts) }
        }
        feeder.join()
        try await Task.sleep(for: .milliseconds(200))   // the last blocks through the 100 ms latency
        let outcome = Outcome(cpuSeconds: ProcessMeters.cpuSeconds() - cpuBefore,
                              wallSeconds: Double(ProcessMeters.monotonicNanoseconds() - wallBefore) / 1e9,
                              expectedBlocks: Int((measured.upperBound - measured.lowerBound).nanoseconds / 10_000_000),
                              blocks: blocks.count, fullBlocks: blocks.full,
                              droppedPushes: feeds.reduce(0) { $0 + $1.droppedPushes },
                              lateTicks: feeder.lateTicks.load(ordering: .relaxed))
        print(String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self))
    }
}

/// Counts output blocks in a window and those at the full mix's level; written on the streaming thread.
private final class BlockLevels: Sendable {
    private let window: Range<ClockTime>
    private let expected: Double
    private let counts = Mutex<(all: Int, full: Int)>((0, 0))

    init(window: Range<ClockTime>, expected: Double) { self.window = window; self.expected = expected }

    func record(pts: ClockTime, samples: [Int16]) {
        guard window.contains(pts), samples.count >= 2 else { return }
        var sum = 0.0
        var index = 0
        while index < samples.count { let value = Double(samples[index]) / 32_768; sum += value * value; index += 2 }
        let level = 10 * log10(max(sum / Double(samples.count / 2), 1e-20))
        let full = abs(level - expected) <= 0.1
        counts.withLock { $0.all += 1; if full { $0.full += 1 } }
    }

    var count: Int { counts.withLock { $0.all } }
    var full: Int { counts.withLock { $0.full } }
}
