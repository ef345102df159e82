import GStreamer

/// One window of far end and microphone, correlated: the echo path GCC-PHAT points at, and for
/// every searched path how much of the microphone's energy one tap there explains — the least a
/// canceller lined up there removes, which is how two paths are weighed against each other.
struct EchoPathAnalysis {
    /// The path at the whitened correlation's peak, and how far that peak stands above its rivals.
    let estimate: EchoPathEstimate
    /// ρ² per lag m (path = `longest` − m samples): (Σ mic·far)² / (Σ mic² · Σ far²) over the window.
    private let explainedShare: [Float]
    private let longest: Int

    /// `far` starts `longest` samples before `mic` and reaches `earliest` past it; nil when the far
    /// end is quieter than `floor` (RMS), the microphone is silent, or the FFT cannot be planned.
    init?(far: [Float], mic: [Float], longest: Int, earliest: Int, floor: Float) {
        let farPower = far.reduce(0) { $0 + $1 * $1 } / Float(max(far.count, 1))
        guard farPower.squareRoot() >= floor, mic.contains(where: { $0 != 0 }) else { return nil }
        let length = RealFFT.fastLength(atLeast: far.count + mic.count)
        guard let fft = try? RealFFT(length: length + length % 2) else { return nil }
        // Cross-spectrum far·conj(mic): its inverse at m is Σ far[n + m]·mic[n], i.e. the match at path `longest` − m.
        let cross = zip(fft.forward(far), fft.forward(mic)).map { x, y in
            SpectrumBin(real: x.real * y.real + x.imaginary * y.imaginary, imaginary: x.imaginary * y.real - x.real * y.imaginary)
        }
        // Whitened (PHAT), only the phase — the delay — remains: a sharp peak for finding the path.
        let correlation = fft.inverse(cross.map { bin in
            let magnitude = (bin.real * bin.real + bin.imaginary * bin.imaginary).squareRoot() + 1e-12
            return SpectrumBin(real: bin.real / magnitude, imaginary: bin.imaginary / magnitude)
        })
        let searched = 0...(longest + earliest)
        guard let peak = searched.max(by: { correlation[$0] < correlation[$1] }), correlation[peak] > 0 else { return nil }
        // The best competitor outside ±5 ms of the peak (reflections sit within it).
        let guardBand = 5 * DecimatedHistory.rate / 1_000
        let rival = searched.filter { abs($0 - peak) > guardBand }.map { correlation[$0] }.max() ?? 0
        let confidence = Double(max(0, min(1, 1 - max(rival, 0) / correlation[peak])))
        let path = max(longest - peak, 0)
        estimate = EchoPathEstimate(delay: ClockTime(nanoseconds: UInt64(path) * DecimatedHistory.samplePeriod), confidence: confidence)

        // Unwhitened, normalised by both energies: the share of the microphone a single tap explains.
        let plain = fft.inverse(cross)
        var farEnergy = [Double](repeating: 0, count: far.count + 1)
        for (index, sample) in far.enumerated() { farEnergy[index + 1] = farEnergy[index] + Double(sample * sample) }
        let micEnergy = mic.reduce(0.0) { $0 + Double($1 * $1) }
        explainedShare = searched.map { lag in
            let energy = micEnergy * (farEnergy[min(lag + mic.count, far.count)] - farEnergy[lag])
            return energy > 0 ? Float(Double(plain[lag]) * Double(plain[lag]) / energy) : 0
        }
        self.longest = longest
    }

    /// The largest share of the microphone one tap explains at a path within `tolerance` of `path`.
    func explained(by path: ClockTime, within tolerance: ClockTime) -> Float {
        let centre = longest - Int(path.nanoseconds / DecimatedHistory.samplePeriod)
        let reach = Int(tolerance.nanoseconds / DecimatedHistory.samplePeriod)
        let lower = max(centre - reach, 0), upper = min(centre + reach, explainedShare.count - 1)
        guard lower <= upper else { return 0 }
        return explainedShare[lower...upper].max() ?? 0
    }
}
