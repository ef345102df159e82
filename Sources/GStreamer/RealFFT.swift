import CGStreamer

/// One bin of a spectrum: a complex value.
public struct SpectrumBin: Sendable, Hashable {
    /// The real part.
    public var real: Float
    /// The imaginary part.
    public var imaginary: Float

    /// A bin of `real` + i·`imaginary`.
    public init(real: Float, imaginary: Float) {
        self.real = real
        self.imaginary = imaginary
    }
}

/// A real-input FFT of a fixed, even length, forward and inverse (wraps `GstFFTF32` of
/// gstreamer-fft-1.0: `gst_fft_f32_new`, `gst_fft_f32_fft`, `gst_fft_f32_inverse_fft`, `gst_fft_f32_free`).
///
/// Not thread-safe: its plans keep scratch memory, so one caller at a time.
public final class RealFFT {
    /// Samples per transform; the spectrum has `length / 2 + 1` bins.
    public let length: Int
    private let forwardPlan: OpaquePointer
    private let inversePlan: OpaquePointer

    /// The smallest length of at least `minimum` that the FFT computes quickly (wraps `gst_fft_next_fast_length`).
    public static func fastLength(atLeast minimum: Int) -> Int {
        Int(gst_fft_next_fast_length(gint(max(2, minimum))))
    }

    /// Plans transforms of `length` samples; throws when the length is odd or not positive.
    public init(length: Int) throws(GStreamerError) {
        guard length > 1, length.isMultiple(of: 2), length <= Int(Int32.max) else {
            throw .failed("an FFT needs an even length, not \(length)")
        }
        // Both return a new plan we own (transfer full); NULL only on a bad length.
        guard let forward = gst_fft_f32_new(gint(length), 0) else {
            throw .failed("gst_fft_f32_new(\(length)) failed")
        }
        guard let inverse = gst_fft_f32_new(gint(length), 1) else {
            gst_fft_f32_free(forward)
            throw .failed("gst_fft_f32_new(\(length), inverse) failed")
        }
        self.length = length
        forwardPlan = forward
        inversePlan = inverse
    }

    /// The spectrum of `samples`, zero-padded or cut to `length`: `length / 2 + 1` bins, unscaled.
    public func forward(_ samples: [Float]) -> [SpectrumBin] {
        var input = samples
        if input.count != length { input = Array(input.prefix(length)) + [Float](repeating: 0, count: max(0, length - input.count)) }
        var output = [GstFFTF32Complex](repeating: GstFFTF32Complex(), count: length / 2 + 1)
        input.withUnsafeBufferPointer { time in
            output.withUnsafeMutableBufferPointer { frequency in
                gst_fft_f32_fft(forwardPlan, time.baseAddress, frequency.baseAddress)
            }
        }
        return output.map { SpectrumBin(real: $0.r, imaginary: $0.i) }
    }

    /// The `length` samples whose spectrum is `spectrum` (`length / 2 + 1` bins, missing ones zero),
    /// scaled by 1/`length` so that `inverse(forward(x))` is `x`.
    public func inverse(_ spectrum: [SpectrumBin]) -> [Float] {
        let bins = length / 2 + 1
        var input = spectrum.prefix(bins).map { GstFFTF32Complex(r: $0.real, i: $0.imaginary) }
        input += [GstFFTF32Complex](repeating: GstFFTF32Complex(), count: bins - input.count)
        var output = [Float](repeating: 0, count: length)
        input.withUnsafeBufferPointer { frequency in
            output.withUnsafeMutableBufferPointer { time in
                gst_fft_f32_inverse_fft(inversePlan, frequency.baseAddress, time.baseAddress)
            }
        }
        let scale = 1 / Float(length)
        return output.map { $0 * scale }
    }

    deinit {
        gst_fft_f32_free(forwardPlan)
        gst_fft_f32_free(inversePlan)
    }
}
