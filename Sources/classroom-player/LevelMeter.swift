import Foundation
import GStreamer
import Synchronization

/// Accumulates the output `level` messages into a loudness summary.
final class LevelMeter: Sendable {
    private struct Totals {
        var energy = 0.0        // Σ mean-square × seconds, over channels averaged
        var seconds = 0.0
        var peak = -Double.infinity
    }
    private let totals = Mutex(Totals())

    /// Adds one level window (dB per channel).
    func add(rms: [Double], peak: [Double], duration: ClockTime) {
        guard !rms.isEmpty, duration > .zero else { return }
        let meanSquare = rms.map { pow(10, $0 / 10) }.reduce(0, +) / Double(rms.count)
        totals.withLock { totals in
            totals.energy += meanSquare * duration.seconds
            totals.seconds += duration.seconds
            totals.peak = max(totals.peak, peak.max() ?? -.infinity)
        }
    }

    /// The summary so far.
    func summary(output: OutputSink) -> Summary {
        totals.withLock { totals in
            let rms = totals.seconds > 0 ? 10 * log10(max(totals.energy / totals.seconds, 1e-20)) : -.infinity
            return Summary(output: output, seconds: totals.seconds, rmsDB: rms, peakDB: totals.peak)
        }
    }
}

/// What was played, in one line.
struct Summary: CustomStringConvertible {
    let output: OutputSink
    let seconds: Double
    let rmsDB: Double
    let peakDB: Double

    /// Below −60 dBFS peak counts as silence.
    var isSilent: Bool { peakDB < -60 }

    var description: String {
        "Played \(String(format: "%.1f", seconds)) s to \(output.description): level \(Summary.format(rmsDB)) dBFS RMS, peak \(Summary.format(peakDB)) dBFS."
    }

    static func format(_ db: Double) -> String { db.isFinite ? String(format: "%.1f", db) : "-inf" }
}
