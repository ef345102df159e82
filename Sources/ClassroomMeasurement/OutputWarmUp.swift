import ClassroomEngine
import Foundation

/// Waits until the engine's output has been running for a little while (sinks prerolled, mixer live).
public enum OutputWarmUp {
    /// True once the engine has run 300 ms (bounded: 5 s).
    public static func settle(_ engine: AudioEngine) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if let time = engine.runningTime, time > .milliseconds(300) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Also waits until `input` has gone 500 ms without dropping audio: a new PulseAudio stream on a
    /// null sink holds its upstream for about a second at start (GSTREAMER-NOTES §6), and the input
    /// queue overflows meanwhile (counted in `droppedPushes`, and audible as a click); and until the
    /// output's clock is aligned (on PulseAudio its sink corrects itself in steps until then,
    /// WORKAROUNDS §34).
    public static func settle(_ engine: AudioEngine, input: AudioInput) async -> Bool {
        guard await settle(engine) else { return false }
        let aligned = ContinuousClock.now + AudioEngine.alignmentLimit + .seconds(1)
        while engine.isAligningOutput, ContinuousClock.now < aligned { try? await Task.sleep(for: .milliseconds(50)) }
        let deadline = ContinuousClock.now + .seconds(10)
        var dropped = input.droppedPushes
        var quietSince = ContinuousClock.now
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            if input.droppedPushes != dropped { dropped = input.droppedPushes; quietSince = ContinuousClock.now }
            if ContinuousClock.now - quietSince >= .milliseconds(500) { return true }
        }
        return false
    }
}
