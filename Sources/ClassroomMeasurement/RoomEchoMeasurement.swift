import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// The echo canceller in a real-time room, through the public API: the engine plays a teacher's
/// speech (an RTC feed) on a speaker sink of the room's own, a `RoomRig` brings it back into a
/// microphone sink with `delay` of unreported latency, and the engine's microphone is that sink's
/// monitor with the voice profile. Runs in real time (about 14 s of speech and 2 s around it).
///
/// The speaker is the room's alone: on the shared "speaker" the bench's long run played beside it,
/// and the room brought that back too — an echo the engine never played (ERLE 22–25 dB instead of 55–75).
public enum RoomEchoMeasurement {
    /// What one room run measured.
    public struct Result: Sendable {
        /// ERLE after `settle`, per-window ERLE, the engine's estimate and the uplink delays (as the synthetic measurement).
        public let path: EchoPathResult
        /// Seconds from the first far-end echo until every later 500 ms window cancels at least 20 dB; nil if that never happens.
        public let convergence: Double?
        /// The echo path measured from the whole run: the peak of the plain cross-correlation of the
        /// far end (by play time) and the microphone (by capture time), at 8 kHz; nil without a clear peak.
        public let truth: ClockTime?

        /// Each uplink frame's energy, by seconds from the first microphone frame.
        public let uplinkFrames: [(seconds: Double, energy: Double)]
        /// Each microphone frame's energy (before the DSP), by seconds from the first microphone frame.
        public let microphoneFrames: [(seconds: Double, energy: Double)]
        /// The uplink's samples (48 kHz mono) from the first microphone frame on.
        public let uplinkAudio: [Int16]
        /// The echo-path estimator's CPU time over the run, as a share of one core (0.01 = 1 %).
        public let estimatorCPUShare: Double
        /// The uplink's level-control gain after each uplink frame (dB), by seconds from the first microphone frame.
        public let gains: [(seconds: Double, gain: Double)]
        /// Where the microphone's capture timestamps left contiguity, and each echo path the engine applied,
        /// by seconds from the first microphone frame (as the windows): what to read first when a run's ERLE falls.
        public var microphoneSteps: [(seconds: Double, milliseconds: Double, discont: Bool)] = []
        public var appliedPaths: [(seconds: Double?, path: EchoPathEstimate)] = []
        /// Each output underrun the engine reported, with the output buffer it left (raised, or kept at its ceiling).
        public var outputUnderruns: [(seconds: Double?, buffer: ClockTime)] = []

        /// |estimate − truth| in milliseconds, when both are known.
        public var estimateError: Double? {
            guard let estimate = path.estimate?.delay, let truth else { return nil }
            return abs(Double(estimate.nanoseconds) - Double(truth.nanoseconds)) / 1e6
        }
    }

    /// One run at `delay` ms of unreported latency; `script` is room.py's path. Without `teacher`
    /// the far end stays silent; `student` is a 48 kHz WAV the room adds `at` seconds in (the near end);
    /// `room` is where it runs (its response, levels and teacher), and `roomOptions` go to room.py
    /// after its options, as they are (`--noise-dbfs`, `--near-dbfs` …).
    public static func run(script: String, delay: Int, settle: ClockTime = .seconds(8), teacher talks: Bool = true,
                           student: (path: String, at: Double)? = nil, room setting: RoomSetting = .suite, roomOptions: [String] = [],
                           processing: VoiceProcessing = .voice, logger: Logger) async throws -> Result {
        let speaker = "room_speaker_\(UInt32.random(in: 0...UInt32.max))"
        let speakerModule = try PulseAudioControl.loadNullSink(speaker)
        defer { PulseAudioControl.unload(speakerModule) }
        let engine = try AudioEngine(output: .soundServer(device: speaker), logger: logger)
        try engine.start()
        defer { engine.stop() }
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let teacher = try engine.addRTCInput(id: "rtc-teacher", format: format)
        let room = try await RoomRig.start(script: script, speaker: speaker, delay: delay, seconds: 40,
                                           extra: (student.map { ["--near", $0.path, "--near-at", "\($0.at)"] } ?? []) + setting.options + roomOptions)
        defer { room.stop() }

        let energies = FrameEnergies()
        let signals = Signals()
        let uplinkAudio = TimedSamples()
        let gains = Mutex<[(time: ClockTime, gain: Double)]>([])
        let chain = Mutex<Uplink?>(nil)
        let estimateTime = Mutex<ClockTime?>(nil)
        let applied = Mutex<[(at: ClockTime?, path: EchoPathEstimate)]>([])
        let watch = engine.observeEchoPath { [weak engine] estimate in
            let now = engine?.runningTime
            estimateTime.withLock { $0 = $0 ?? now }
            applied.withLock { $0.append((now, estimate)) }
        }
        defer { watch.cancel() }
        let underruns = Mutex<[(at: ClockTime?, buffer: ClockTime)]>([])
        let underrunWatch = engine.observe { [weak engine] event in
            if case .outputUnderrun(let buffer, _) = event { underruns.withLock { $0.append((engine?.runningTime, buffer)) } }
        }
        defer { underrunWatch.cancel() }
        let uplink = try engine.connectMicrophone(.device(room.microphone), processing: processing) { [weak engine] frame in
            guard let pts = frame.timestamp else { return }
            if let now = engine?.runningTime { energies.recordDelay(now.nanoseconds > pts.nanoseconds ? now.nanoseconds - pts.nanoseconds : 0) }
            energies.recordUplink(pts, frame.samples)
            uplinkAudio.record(frame.samples, at: pts)
            if let gain = chain.withLock({ $0?.gain }) { gains.withLock { $0.append((pts, gain)) } }
        }
        chain.withLock { $0 = uplink }
        defer { chain.withLock { $0 = nil } }
        let connected = ContinuousClock.now
        let latency = engine.outputLatency
        let micSteps = TimestampSteps()
        let micTap = try uplink.tapCapture { buffer in
            micSteps.record(buffer)
            guard let pts = buffer.pts else { return }
            let samples = buffer.int16Samples()
            energies.recordMicrophone(pts, samples)
            signals.record(microphone: samples, at: pts)
        }
        defer { micTap?.remove() }
        let farTap = try engine.tapOutput { buffer in
            guard let pts = buffer.pts else { return }
            signals.record(farEnd: buffer.int16Samples(), channels: EngineGraph.outputFormat.channels, at: pts + latency)
        }
        defer { farTap?.remove() }
        // The teacher's speech, or as long in silence.
        let pump = try SignalPump("filesrc location=\(try setting.teacher()) ! wavparse ! volume volume=\(talks ? 1 : 0)", into: teacher, format: format)
        defer { pump.stop() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !pump.finished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(500))
        if let student {
            // The student, placed from the room's start (just before `connected`), is heard whole with
            // 2 s to spare: the teacher's end left 0.9 s, and a run with a 0.94 s shorter uplink cut
            // the student off and measured noise for them (+50 dB "kept", Debian 13 CI).
            let speech = Double(try WaveFile.samples(at: student.path).count) / 48_000
            try await Task.sleep(until: connected + .seconds(student.at + speech + 2), clock: .continuous)
        }
        let elapsed = ContinuousClock.now - connected
        let cpuShare = Double(uplink.echoPathEstimatorCPU.nanoseconds) / 1e9 / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let firstMic = energies.microphone.withLock { $0.keys.min() }
        let audio = firstMic.map { uplinkAudio.assembled(from: $0, rate: 48_000) } ?? []
        let gainTrace = firstMic.map { first in
            gains.withLock { $0 }.map { (seconds: (Double($0.time.nanoseconds) - Double(first.nanoseconds)) / 1e9, gain: $0.gain) }
        } ?? []
        if !talks {
            return Result(path: .silent, convergence: nil, truth: nil, uplinkFrames: energies.uplinkFrames(), microphoneFrames: energies.microphoneFrames(),
                          uplinkAudio: audio, estimatorCPUShare: cpuShare, gains: gainTrace)
        }
        let estimate = engine.echoPath

        let (erle, windows) = try energies.erle(settle: settle)
        let after = estimateTime.withLock { $0 }.flatMap { time in firstMic.map { (Double(time.nanoseconds) - Double($0.nanoseconds)) / 1e9 } }
        let path = EchoPathResult(erle: erle, minimumWindowERLE: windows.min() ?? 0, windowERLE: windows, estimate: estimate,
                                  estimateAfter: after, uplinkDelays: energies.delays.withLock { $0 }.sorted().map { ClockTime(nanoseconds: $0) },
                                  lostMicrophoneBuffers: nil)
        // Converged from the first window after which no window falls below 20 dB.
        let lastBad = windows.lastIndex { $0 < 20 }
        let convergence: Double? = lastBad == windows.count - 1 ? nil : Double((lastBad ?? -1) + 1) * 0.5
        var result = Result(path: path, convergence: convergence, truth: signals.echoPath(longest: .milliseconds(600)),
                            uplinkFrames: energies.uplinkFrames(), microphoneFrames: energies.microphoneFrames(),
                            uplinkAudio: audio, estimatorCPUShare: cpuShare, gains: gainTrace)
        let since = { (time: ClockTime) in firstMic.map { (Double(time.nanoseconds) - Double($0.nanoseconds)) / 1e9 } ?? 0 }
        result.microphoneSteps = micSteps.steps.map { (since($0.at), $0.milliseconds, $0.discont) }
        result.appliedPaths = applied.withLock { $0 }.map { ($0.at.map(since), $0.path) }
        result.outputUnderruns = underruns.withLock { $0 }.map { ($0.at.map(since), $0.buffer) }
        return result
    }
}

/// The far end and the microphone at 8 kHz (means of 6 samples), placed by time; written on streaming threads.
private final class Signals: Sendable {
    private static let step = 6
    private static let rate = 8_000
    private let far = Mutex<[Int: Float]>([:])
    private let mic = Mutex<[Int: Float]>([:])

    func record(farEnd samples: [Int16], channels: Int, at time: ClockTime) {
        let frames = samples.count / channels
        let mono = (0..<frames).map { frame in (0..<channels).reduce(Float(0)) { $0 + Float(samples[frame * channels + $1]) } / Float(channels) }
        place(mono, at: time, into: far)
    }

    func record(microphone samples: [Int16], at time: ClockTime) {
        place(samples.map(Float.init), at: time, into: mic)
    }

    private func place(_ samples: [Float], at time: ClockTime, into store: borrowing Mutex<[Int: Float]>) {
        let start = Int(time.nanoseconds * UInt64(Self.rate) / 1_000_000_000)
        var decimated: [(Int, Float)] = []
        var index = 0
        while index + Self.step <= samples.count {
            decimated.append((start + index / Self.step, samples[index..<index + Self.step].reduce(0, +) / Float(Self.step)))
            index += Self.step
        }
        store.withLock { for (slot, value) in decimated { $0[slot] = value } }
    }

    /// The lag (0…`longest`) at which the microphone best matches the far end.
    func echoPath(longest: ClockTime) -> ClockTime? {
        let farSlots = far.withLock { $0 }, micSlots = mic.withLock { $0 }
        guard let first = micSlots.keys.min(), let last = micSlots.keys.max() else { return nil }
        let count = last - first + 1
        let lags = Int(longest.nanoseconds * UInt64(Self.rate) / 1_000_000_000)
        let length = RealFFT.fastLength(atLeast: 2 * (count + lags))
        guard let fft = try? RealFFT(length: length) else { return nil }
        var farSignal = [Float](repeating: 0, count: length), micSignal = [Float](repeating: 0, count: length)
        for (slot, value) in micSlots { micSignal[slot - first] = value }
        for (slot, value) in farSlots where slot >= first && slot - first < length { farSignal[slot - first] = value }
        let farSpectrum = fft.forward(farSignal), micSpectrum = fft.forward(micSignal)
        // IFFT(M · conj(F))[k] = Σ mic[n + k] · far[n]: the microphone k samples after the far end.
        let cross = zip(micSpectrum, farSpectrum).map { mic, far in
            SpectrumBin(real: mic.real * far.real + mic.imaginary * far.imaginary, imaginary: mic.imaginary * far.real - mic.real * far.imaginary)
        }
        let correlation = fft.inverse(cross)
        var best = (lag: 0, value: -Float.greatestFiniteMagnitude)
        for k in 0...lags where correlation[k] > best.value { best = (k, correlation[k]) }
        guard best.value > 0 else { return nil }
        return ClockTime(nanoseconds: UInt64(best.lag) * 1_000_000_000 / UInt64(Self.rate))
    }
}
