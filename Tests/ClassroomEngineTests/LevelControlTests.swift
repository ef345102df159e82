import Foundation
import Testing
@testable import ClassroomEngine

/// The level control's arithmetic on its own, frame by frame, with the shapes the DSP hands it.
@Suite("The level control's noise floor")
struct LevelControlTests {
    /// 10 ms of seeded white noise at `dBFS` (RMS against full scale), or digital silence.
    private struct Frames {
        private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

        mutating func noise(_ dBFS: Double) -> [Int16] {
            let rms = 32768 * pow(10, dBFS / 20)
            return (0..<480).map { _ in
                // Uniform on ±√3·rms has that RMS.
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let unit = Double(state >> 11) / Double(1 << 53) * 2 - 1
                return Int16(clamping: Int((unit * rms * 3.0.squareRoot()).rounded()))
            }
        }

        func silence() -> [Int16] { [Int16](repeating: 0, count: 480) }
    }

    private static func run(_ control: inout LevelControl, _ frames: [[Int16]]) -> (speech: Int, gain: Double) {
        var speech = 0
        for var frame in frames {
            if frame.withUnsafeMutableBufferPointer({ control.process($0, adapt: true) }) { speech += 1 }
        }
        return (speech, control.gain)
    }

    /// The noise row of the room (#24, AEC3): the microphone's first frames, 0.5 s of zeros, then room
    /// noise the suppressor has not yet taken out (−46 dBFS, above the −50 dBFS speech floor) coming down
    /// over 1.5 s to its converged residue. A floor lowered by the zeros took that noise for a talker
    /// and lifted it for good (3 dB here before; 0.5–4.4 dB in the room).
    @Test("noise the suppressor has not yet converged on never moves the gain, whatever came before a silence")
    func unconvergedNoiseIsNotATalker() {
        for before in [nil, -64.0] {
            var frames = Frames()
            var control = LevelControl()
            let start = before.map { level in (0..<50).map { _ in frames.noise(level) } } ?? []
            let converging = (0..<150).map { frames.noise(-46 - 16 * Double($0) / 150) }
            let signal = start + Array(repeating: frames.silence(), count: 50) + converging + (0..<200).map { _ in frames.noise(-62) }
            let result = Self.run(&control, signal)
            #expect(result.gain == 0, "before the silence: \(String(describing: before))")
            #expect(result.speech == 0, "before the silence: \(String(describing: before))")
            #expect((control.noiseFloor ?? 0) < -60)
        }
    }

    /// A talker is lifted once the floor is learned, whether the pauses between words hold the room's
    /// residual noise, a quiet microphone's self-noise, or zeros (a pushed voice, as espeak-ng's: a
    /// warm-up restarted at each pause lifted `UplinkGainTests`' talker 1.6 dB in 3 s instead of 5.6).
    @Test("a −40 dBFS talker is lifted after the warm-up, with room noise, a quiet microphone or zeros between words")
    func talkerIsLifted() {
        for pause in [-62.0, -90.0, nil] {
            var frames = Frames()
            var control = LevelControl()
            // A word rises out of its pause: 30 ms of onset, then 270 ms at −40 dBFS.
            let word = (0..<30).map { frames.noise($0 < 3 ? -55 : -40) }
            let gap = (0..<20).map { _ in pause.map { frames.noise($0) } ?? frames.silence() }
            let result = Self.run(&control, Array([[[Int16]]](repeating: word + gap, count: 8).joined()))
            #expect(result.speech > 100, "pauses at \(String(describing: pause)) dBFS")
            #expect(result.gain > 5, "pauses at \(String(describing: pause)) dBFS")
        }
    }
}
