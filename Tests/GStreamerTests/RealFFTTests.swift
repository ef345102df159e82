import Foundation
import Testing
import GStreamer

@Suite("Real FFT (gstfft)")
struct RealFFTTests {
    @Test("a 1 kHz tone at 8 kHz lands in its bin, and the inverse gives the samples back")
    func toneRoundTrip() throws {
        let fft = try RealFFT(length: 256)
        // 1 kHz at 8 kHz over 256 samples: exactly bin 32.
        let tone = (0..<256).map { Float(sin(2 * Double.pi * 1_000 * Double($0) / 8_000)) }
        let spectrum = fft.forward(tone)
        #expect(spectrum.count == 129)
        let magnitudes = spectrum.map { ($0.real * $0.real + $0.imaginary * $0.imaginary).squareRoot() }
        #expect(magnitudes.firstIndex(of: magnitudes.max() ?? 0) == 32)
        let back = fft.inverse(spectrum)
        let worst = zip(back, tone).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-4)
    }

    @Test("odd lengths are refused and fast lengths are at least what was asked")
    func lengths() {
        #expect(throws: GStreamerError.self) { try RealFFT(length: 255) }
        #expect(RealFFT.fastLength(atLeast: 1_000) >= 1_000)
    }
}
