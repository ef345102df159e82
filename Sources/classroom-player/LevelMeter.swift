import Foundation
import Synchronization

/// Accumulates the output's `level` windows into a loudness summary, and keeps the latest
/// window of each meter for the progress line and `status`.
final class LevelMeter: Sendable {
    private struct Totals {
        var energy = 0.0        // Σ mean-square × seconds, channels averaged
        var seconds = 0.0
        var peak = -Double.infinity
        var latest: [String: Double] = [:]
    }
    private let totals = Mutex(Totals())

    /// Adds one window of the output meter (dBFS per channel) lasting `seconds`.
    func add(rms: [Double], peak: [Double], seconds: Double) {
        // The level element reports NaN for a window with no samples; it carries no loudness.
        guard !rms.isEmpty, seconds > 0, !rms.contains(where: \.isNaN), !peak.contains(where: \.isNaN) else { return }
        let meanSquare = rms.map { pow(10, $0 / 10) }.reduce(0, +) / Double(rms.count)
        totals.withLock { totals in
            totals.energy += meanSquare * seconds
            totals.seconds += seconds
            totals.peak = max(totals.peak, peak.max() ?? -.infinity)
        }
    }

    /// Records the latest loudest-channel RMS of `meter`.
    func record(meter: String, rms: [Double]) {
        guard let loudest = rms.max() else { return }
        totals.withLock { $0.latest[meter] = loudest }
    }

    /// The latest RMS of `meter`, in dBFS.
    func latest(_ meter: String) -> Double? { totals.withLock { $0.latest[meter] } }

    /// Forgets the latest window of `meter` (the microphone disconnected).
    func forget(_ meter: String) { _ = totals.withLock { $0.latest.removeValue(forKey: meter) } }

    /// What was measured so far.
    var summary: Summary {
        totals.withLock { totals in
            let rms = totals.seconds > 0 ? 10 * log10(max(totals.energy / totals.seconds, 1e-20)) : -.infinity
            return Summary(seconds: totals.seconds, rmsDB: rms, peakDB: totals.peak)
        }
    }

    /// The loudness of everything played.
    struct Summary {
        /// Seconds measured.
        let seconds: Double
        /// Mean RMS level, dBFS.
        let rmsDB: Double
        /// Highest peak, dBFS.
        let peakDB: Double

        /// Below −60 dBFS peak over at least half a second counts as silence (a run stopped
        /// before anything was measured is not judged).
        var isSilent: Bool { seconds >= 0.5 && peakDB < -60 }

        /// Below this a level is printed as silence: the level element says -350 dBFS (or -inf)
        /// for digital zero, which reads as a number nobody can use.
        static let silenceFloor = -90.0

        /// "-21.4 dBFS", or "below -90 dBFS" for silence.
        static func format(_ db: Double) -> String { db.isFinite && db >= silenceFloor ? String(format: "%.1f dBFS", db) : "below \(Int(silenceFloor)) dBFS" }
    }
}
