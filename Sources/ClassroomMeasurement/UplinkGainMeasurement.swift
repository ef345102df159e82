import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// The uplink's level control through the public API, on real speech (issue #23): a pushed
/// microphone carries a talker at a chosen level, and optionally the echo of the teacher's speech
/// that the engine plays, paced by the output so both run in real time on one timeline.
public enum UplinkGainMeasurement {
    /// What one run sent up.
    public struct Result: Sendable {
        /// The uplink (48 kHz mono) from the first microphone frame on, placed by capture time.
        public let uplink: [Int16]
        /// What was pushed as the microphone, on the same timeline.
        public let microphone: [Int16]
        /// The level control's gain after each uplink frame, by seconds from the first microphone frame.
        public let gains: [(seconds: Double, gain: Double)]
        /// Near-end speech frames on which the far end froze the gain, and on which it adapted.
        public let speechFrames: (frozen: Int, adapted: Int)
        /// Where the talker starts in `uplink` and `microphone` (samples).
        public let talkerStart: Int
    }

    /// Pushes `talker` (48 kHz mono) as the microphone from `at` seconds in. With `echoGain`, the
    /// teacher's speech (`SpeechSample.farEnd`) plays as an RTC feed and the microphone hears the
    /// output × `echoGain`, `echoDelay` after it plays; without, the far end is silent. Runs until the
    /// talker and the teacher are done, in real time.
    public static func run(talker: [Int16], at start: Double, echoGain: Double? = nil, echoDelay: ClockTime = .milliseconds(60),
                           processing: VoiceProcessing = .voice, logger: Logger) async throws -> Result {
        let engine = try AudioEngine(output: .discard, logger: logger)
        try engine.start()
        defer { engine.stop() }
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try engine.addRTCInput(id: "rtc-teacher", format: format)
        let uplinkAudio = TimedSamples(), microphoneAudio = TimedSamples()
        let gains = Mutex<[(time: ClockTime, gain: Double)]>([])
        let chain = Mutex<Uplink?>(nil)
        let uplink = try engine.connectMicrophone(.pushed, processing: processing) { frame in
            guard let pts = frame.timestamp else { return }
            uplinkAudio.record(frame.samples, at: pts)
            if let gain = chain.withLock({ $0?.gain }) { gains.withLock { $0.append((pts, gain)) } }
        }
        chain.withLock { $0 = uplink }
        defer { chain.withLock { $0 = nil } }
        guard let microphone = uplink.pushedInput else { throw MeasurementError("the pushed microphone has no input") }
        let shift = engine.outputLatency + echoDelay
        let startSample = Int(start * 48_000)
        let pushing = Mutex<(origin: ClockTime?, pushed: Int)>((nil, 0))
        // Each output buffer is what the speaker plays; its echo and the talker are captured `shift` later.
        let tap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts else { return }
            let stereo = buffer.int16Samples()
            var frame = [Int16](repeating: 0, count: stereo.count / 2)
            let offset = pushing.withLock { state -> Int in
                state.origin = state.origin ?? pts + shift
                defer { state.pushed += frame.count }
                return state.pushed
            }
            for index in frame.indices {
                let echo = Double(stereo[index * 2]) * (echoGain ?? 0)
                let talkerIndex = offset + index - startSample
                let near = talkerIndex >= 0 && talkerIndex < talker.count ? Double(talker[talkerIndex]) : 0
                frame[index] = Int16(clamping: Int((echo + near).rounded()))
            }
            microphoneAudio.record(frame, at: pts + shift)
            _ = try? microphone.push(frame, pts: pts + shift)
        }
        defer { tap?.remove() }
        let pump = try SignalPump("filesrc location=\(try SpeechSample.farEnd()) ! wavparse ! volume volume=\(echoGain == nil ? 0 : 1)",
                                  into: teacher, format: format)
        defer { pump.stop() }
        let total = startSample + talker.count
        let deadline = ContinuousClock.now + .seconds(Double(total) / 48_000 + 30)
        while ContinuousClock.now < deadline, !(pump.finished && pushing.withLock({ $0.pushed }) > total) {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(300))
        tap?.remove()
        guard let origin = pushing.withLock({ $0.origin }) else { throw MeasurementError("the output never played, so nothing was pushed") }
        let trace = gains.withLock { $0 }.filter { $0.time >= origin }
            .map { (seconds: Double($0.time.nanoseconds - origin.nanoseconds) / 1e9, gain: $0.gain) }
        return Result(uplink: uplinkAudio.assembled(from: origin, rate: 48_000), microphone: microphoneAudio.assembled(from: origin, rate: 48_000),
                      gains: trace, speechFrames: uplink.gainSpeechFrames, talkerStart: startSample)
    }

    /// The active speech level of `samples` (48 kHz), dBFS: the mean power of the louder half of
    /// their 10 ms frames (as room.py levels its talker), relative to a full-scale square wave.
    public static func activeLevel<Samples: Collection>(_ samples: Samples) -> Double where Samples.Element == Int16 {
        let values = Array(samples)
        let powers = stride(from: 0, to: values.count - 479, by: 480).map { start in
            values[start..<start + 480].reduce(0.0) { $0 + Double($1) * Double($1) } / 480
        }.sorted()
        let louder = powers.suffix(max(1, powers.count / 2))
        let mean = louder.reduce(0, +) / Double(max(louder.count, 1))
        return 10 * log10(max(mean, 1e-3) / (32768.0 * 32768.0))
    }

    /// `samples` scaled to an active speech level of `dBFS`.
    public static func leveled(_ samples: [Int16], to dBFS: Double) -> [Int16] {
        let scale = pow(10, (dBFS - activeLevel(samples)) / 20)
        return samples.map { Int16(clamping: Int((Double($0) * scale).rounded())) }
    }
}
