import ClassroomEngine
import Foundation
import GStreamer
import Logging

/// What the room does to the student's side of the uplink (issue #11 items 4 and 5, #23): double talk,
/// room noise alone, and a talker alone at a given level, each through the public API like `RoomEchoMeasurement.run`.
public enum RoomNearEnd {
    /// A double-talk measurement: the same student with and without the teacher talking.
    public struct DoubleTalk: Sendable {
        /// 10·log10(E_uplink with both / E_uplink student alone) over the student's speech, in dB (0: nothing lost).
        public let kept: Double
        /// The run with the student alone, and the one with the teacher talking too.
        public let alone: RoomEchoMeasurement.Result, both: RoomEchoMeasurement.Result
        /// The student's clean speech (48 kHz mono WAV), as the room adds it.
        public let reference: String
        /// Where the student is in each run's uplink (samples at 48 kHz), found by correlation with `reference`.
        let aloneSpan: Range<Int>, bothSpan: Range<Int>

        /// Where the student's speech starts on each run's uplink, seconds from its first microphone frame.
        public let onsets: (alone: Double, both: Double)
        /// The uplink around the speech: a quarter of a second either side.
        public static let margin = 48_000 / 4

        /// The uplink over the student's speech, from the run with or without the teacher.
        public func uplink(withTeacher: Bool) -> [Int16] {
            Array(withTeacher ? both.uplinkAudio[bothSpan] : alone.uplinkAudio[aloneSpan])
        }
    }

    /// The student in double talk (ITU-T P.340): talks 8 s in, once alone and once while the teacher talks.
    /// Each run's student is found in its own uplink: room.py and the engine start apart by a varying
    /// 0–0.5 s, so one span for both runs cut the student short in one of them (measured).
    public static func doubleTalk(script: String, delay: Int, room: RoomSetting = .suite, processing: VoiceProcessing = .voice,
                                  logger: Logger) async throws -> DoubleTalk {
        let student = (path: try room.student(), at: 8.0)   // after the canceller converged (2–3 s in the room)
        let alone = try await RoomEchoMeasurement.run(script: script, delay: delay, teacher: false, student: student, room: room,
                                                      processing: processing, logger: logger)
        let both = try await RoomEchoMeasurement.run(script: script, delay: delay, student: student, room: room, processing: processing, logger: logger)
        let speech = try WaveFile.samples(at: student.path)
        func span(in result: RoomEchoMeasurement.Result, _ run: String) throws -> (span: Range<Int>, onset: Double) {
            let margin = DoubleTalk.margin, heard = result.uplinkAudio.count
            // A speech cut by the run's end is not where correlation finds it: the peak then falls anywhere.
            guard let onset = onset(of: speech, in: result.uplinkAudio), onset + speech.count <= heard else {
                throw MeasurementError("the student (\(formatted(speech.count)) s of speech) was not found whole on the uplink of the run \(run) "
                                       + "(\(formatted(heard)) s of uplink audio, \(result.uplinkFrames.count) frames)")
            }
            return (max(0, onset - margin)..<min(heard, onset + speech.count + margin), Double(onset) / 48_000)
        }
        let (aloneSpan, aloneOnset) = try span(in: alone, "with the student alone"), (bothSpan, bothOnset) = try span(in: both, "in double talk")
        func energy(_ samples: ArraySlice<Int16>) -> Double { samples.reduce(0) { $0 + Double($1) * Double($1) } }
        let single = energy(alone.uplinkAudio[aloneSpan]), double = energy(both.uplinkAudio[bothSpan])
        guard single > 0 else { throw MeasurementError("the uplink carried nothing of the student alone") }
        return DoubleTalk(kept: 10 * log10(max(double, 1) / single), alone: alone, both: both, reference: student.path,
                          aloneSpan: aloneSpan, bothSpan: bothSpan, onsets: (aloneOnset, bothOnset))
    }

    /// Samples at 48 kHz as seconds, for a message.
    private static func formatted(_ samples: Int) -> String { String(format: "%.2f", Double(samples) / 48_000) }

    /// Where `reference` starts in `audio` (both 48 kHz), by the peak of their cross-correlation at 8 kHz.
    static func onset(of reference: [Int16], in audio: [Int16]) -> Int? {
        func decimated(_ samples: [Int16]) -> [Float] {
            stride(from: 0, to: samples.count - 5, by: 6).map { start in (0..<6).reduce(Float(0)) { $0 + Float(samples[start + $1]) } / 6 }
        }
        let near = decimated(reference), heard = decimated(audio)
        guard !near.isEmpty, heard.count > near.count else { return nil }
        let length = RealFFT.fastLength(atLeast: heard.count + near.count)
        guard let fft = try? RealFFT(length: length + length % 2) else { return nil }
        let heardSpectrum = fft.forward(heard), nearSpectrum = fft.forward(near)
        // IFFT(H · conj(N))[k] = Σ heard[n + k] · near[n]: the reference k samples into the audio.
        let cross = zip(heardSpectrum, nearSpectrum).map { h, n in
            SpectrumBin(real: h.real * n.real + h.imaginary * n.imaginary, imaginary: h.imaginary * n.real - h.real * n.imaginary)
        }
        let correlation = fft.inverse(cross)
        let lags = 0...(heard.count - near.count)
        guard let peak = lags.max(by: { correlation[$0] < correlation[$1] }), correlation[peak] > 0 else { return nil }
        return peak * 6
    }

    /// Room noise alone (no teacher, no student) at `noiseDBFS`: 10·log10(E_mic / E_uplink) over
    /// everything from 3 s after the first microphone frame, in dB; and the noise level on the microphone.
    public static func noiseReduction(script: String, noiseDBFS: Double, processing: VoiceProcessing = .voice,
                                      logger: Logger) async throws -> (reduction: Double, microphoneDBFS: Double) {
        let run = try await RoomEchoMeasurement.run(script: script, delay: 0, teacher: false, roomOptions: ["--noise-dbfs", "\(noiseDBFS)"],
                                                    processing: processing, logger: logger)
        let settled = 3.0...Double.greatestFiniteMagnitude
        let microphone = energy(run.microphoneFrames, in: settled), uplink = energy(run.uplinkFrames, in: settled)
        let frames = run.microphoneFrames.filter { settled.contains($0.seconds) }.count
        guard frames > 300, microphone > 0 else { throw MeasurementError("only \(frames) microphone frames of noise arrived") }
        return (10 * log10(microphone / max(uplink, 1)), dBFS(microphone / Double(frames * 480)))
    }

    /// What reached the uplink of a student talking alone at a given level.
    public struct Talker: Sendable {
        /// The microphone's active speech level over the student's speech, dBFS.
        public let microphone: Double
        /// The uplink's active speech level from `settle` into the speech to its end, dBFS.
        public let uplink: Double
        /// The largest uplink sample over the speech (32767 or more: clipped).
        public let uplinkPeak: Int
        /// The level control's gain when the student stopped, dB.
        public let finalGain: Double
    }

    /// A student (`SpeechSample.longNearEnd`, about 8 s) speaking at `talkerDBFS` active speech level
    /// 3 s in (done before the run's 13 s end), the teacher silent: the microphone over their speech, the uplink from `settle` seconds
    /// into it (what a level control has had time to do). The speech is found on the uplink by correlation.
    public static func talker(script: String, talkerDBFS: Double, settle: Double = 3, processing: VoiceProcessing = .voice,
                              logger: Logger) async throws -> Talker {
        let student = (path: try SpeechSample.longNearEnd(), at: 3.0)
        let run = try await RoomEchoMeasurement.run(script: script, delay: 0, teacher: false, student: student,
                                                    roomOptions: ["--near-dbfs", "\(talkerDBFS)"], processing: processing, logger: logger)
        let speech = try WaveFile.samples(at: student.path)
        guard let onset = onset(of: speech, in: run.uplinkAudio), onset + speech.count <= run.uplinkAudio.count
        else { throw MeasurementError("the student was not found whole on the uplink") }
        let talk = run.uplinkAudio[onset..<(onset + speech.count)]
        let seconds = Double(onset) / 48_000...Double(onset + speech.count) / 48_000
        let heard = run.microphoneFrames.filter { seconds.contains($0.seconds) }
        guard heard.count > 300 else { throw MeasurementError("the student was not heard on the microphone") }
        return Talker(microphone: activeLevel(run.microphoneFrames, in: seconds),
                      uplink: UplinkGainMeasurement.activeLevel(talk.dropFirst(Int(settle * 48_000))),
                      uplinkPeak: talk.map { abs(Int($0)) }.max() ?? 0,
                      finalGain: run.gains.last { $0.seconds <= seconds.upperBound }?.gain ?? 0)
    }

    private static func energy(_ frames: [(seconds: Double, energy: Double)], in span: ClosedRange<Double>) -> Double {
        frames.filter { span.contains($0.seconds) }.reduce(0) { $0 + $1.energy }
    }

    /// The mean power of the louder half of the 10 ms frames in `span` (the talker, not the pauses), in dBFS.
    private static func activeLevel(_ frames: [(seconds: Double, energy: Double)], in span: ClosedRange<Double>) -> Double {
        let energies = frames.filter { span.contains($0.seconds) }.map(\.energy).sorted()
        let louder = energies.suffix(max(1, energies.count / 2))
        return dBFS(louder.reduce(0, +) / Double(louder.count * 480))
    }

    /// dB relative to a full-scale square wave's power (32768²).
    private static func dBFS(_ meanPower: Double) -> Double { 10 * log10(max(meanPower, 1e-3) / (32768.0 * 32768.0)) }
}
