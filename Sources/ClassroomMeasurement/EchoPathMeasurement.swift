import ClassroomEngine
import Foundation
import GStreamer
import Logging
import Synchronization

/// Echo return loss enhancement through the engine (DESIGN §7): speech plays as an RTC feed, and
/// the "microphone" hears what the output renders, attenuated and `echoDelay` later. A buffer
/// at running time P plays at P + the output latency, so its echo is captured at
/// P + latency + echoDelay, and the pushed frame carries that time.
public enum EchoPathMeasurement {
    /// ERLE in dB, 10·log10(P_mic / P_uplink), over the 10 ms frames with far-end speech
    /// (above −50 dBFS) from `settle` after the first one. Runs in real time (about 13 s).
    public static func erle(processing: VoiceProcessing, echoDelay: ClockTime, gain: Double = 0.5, settle: ClockTime,
                            configuration: AudioEngine.Configuration = .init(), logger: Logger) async throws -> Double {
        try await run(processing: processing, echoDelay: echoDelay, gain: gain, settle: settle, configuration: configuration, logger: logger).erle
    }

    /// The full run: ERLE after `settle`, ERLE per 500 ms window, the engine's echo-path estimate
    /// and when it came, and the uplink's added delay.
    public static func run(processing: VoiceProcessing, echoDelay: ClockTime, gain: Double = 0.5, settle: ClockTime,
                           configuration: AudioEngine.Configuration = .init(), logger: Logger) async throws -> EchoPathResult {
        let engine = try AudioEngine(output: .discard, configuration: configuration, logger: logger)
        try engine.start()
        defer { engine.stop() }
        let rtcFormat = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        let farEnd = try engine.addRTCInput(id: "rtc-teacher", format: rtcFormat)
        let energies = FrameEnergies()
        let firstMic = Mutex<ClockTime?>(nil)
        let estimateTime = Mutex<ClockTime?>(nil)
        // Weak: the engine keeps these closures, and a strong capture kept the whole engine alive (leaks tracer).
        let echoPathWatch = engine.observeEchoPath { [weak engine] _ in
            estimateTime.withLock { $0 = $0 ?? engine?.runningTime }
        }
        defer { echoPathWatch.cancel() }
        let uplink = try engine.connectMicrophone(.pushed, processing: processing) { [weak engine] frame in
            guard let pts = frame.timestamp else { return }
            if let now = engine?.runningTime { energies.recordDelay(now.nanoseconds > pts.nanoseconds ? now.nanoseconds - pts.nanoseconds : 0) }
            energies.recordUplink(pts, frame.samples)
        }
        guard let mic = uplink.pushedInput else { throw MeasurementError("the pushed microphone has no input") }
        // Where a frame waits: until the pacing hands it to the DSP (the reference wait), and whether the
        // DSP gets it whole (webrtcdsp would hold the rest of a part-frame, and every later frame behind it).
        let framing = Mutex<(delays: [UInt64], partial: Int)>(([], 0))
        let partPushes = Atomic<Int>(0)
        let frameBytes = Int(EngineGraph.frameDuration.nanoseconds) * EngineGraph.uplinkFormat.rate / 1_000_000_000 * 2
        let framingTap = try uplink.tapCapture { [weak engine] buffer in
            guard let pts = buffer.pts, let now = engine?.runningTime else { return }
            framing.withLock {
                $0.delays.append(now.nanoseconds > pts.nanoseconds ? now.nanoseconds - pts.nanoseconds : 0)
                if buffer.size != frameBytes { $0.partial += 1 }
            }
        }
        defer { framingTap?.remove() }
        let shift = engine.outputLatency + echoDelay
        let lost = Atomic<Int>(0)
        let tapEnd = Mutex<ClockTime?>(nil)
        let tap = try engine.tapOutput { [weak engine] buffer in
            guard let pts = buffer.pts else { return }
            let skipped = tapEnd.withLock { end in
                defer { end = pts + (buffer.duration ?? .zero) }
                return end.map { pts > $0 + .milliseconds(1) } ?? false
            }
            if skipped { lost.add(1, ordering: .relaxed) }
            let stereo = buffer.int16Samples()
            var mono = [Int16](repeating: 0, count: stereo.count / 2)
            if mono.count * 2 != frameBytes { partPushes.add(1, ordering: .relaxed) }
            for index in mono.indices { mono[index] = Int16(Double(stereo[index * 2]) * gain) }
            firstMic.withLock { $0 = $0 ?? engine?.runningTime }
            energies.recordMicrophone(pts + shift, mono)
            if (try? mic.push(mono, pts: pts + shift)) == nil { lost.add(1, ordering: .relaxed) }
        }
        let speech = try SpeechSample.farEnd()
        let pump = try SignalPump("filesrc location=\(speech) ! wavparse", into: farEnd, format: rtcFormat)
        defer { pump.stop() }
        // Run through the speech while frames come back.
        let deadline = ContinuousClock.now + .seconds(30)
        while !pump.finished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(400))
        tap?.remove()
        let estimate = engine.echoPath

        let (erle, windowERLE) = try energies.erle(settle: settle)
        let after = estimateTime.withLock { $0 }.flatMap { time in
            firstMic.withLock { $0 }.map { (Double(time.nanoseconds) - Double($0.nanoseconds)) / 1e9 }
        }
        let framed = framing.withLock { $0 }
        return EchoPathResult(erle: erle, minimumWindowERLE: windowERLE.min() ?? 0,
                              windowERLE: windowERLE, estimate: estimate, estimateAfter: after,
                              uplinkDelays: energies.delays.withLock { $0 }.sorted().map { ClockTime(nanoseconds: $0) },
                              lostMicrophoneBuffers: lost.load(ordering: .relaxed),
                              framing: .init(delays: framed.delays.sorted().map { ClockTime(nanoseconds: $0) }, partialFrames: framed.partial,
                                             partPushes: partPushes.load(ordering: .relaxed)))
    }
}

/// The energy of each 10 ms frame going into the DSP and coming out of it, by (capture) running
/// time; written on streaming threads.
final class FrameEnergies: Sendable {
    let microphone = Mutex<[ClockTime: Double]>([:])
    let uplink = Mutex<[ClockTime: Double]>([:])
    let delays = Mutex<[UInt64]>([])

    func recordDelay(_ nanoseconds: UInt64) { delays.withLock { $0.append(nanoseconds) } }

    func recordMicrophone(_ pts: ClockTime, _ samples: [Int16]) {
        let energy = Self.energy(samples)
        microphone.withLock { $0[pts] = energy }
    }

    func recordUplink(_ pts: ClockTime, _ samples: [Int16]) {
        let energy = Self.energy(samples)
        uplink.withLock { $0[pts] = energy }
    }

    /// ERLE in dB, 10·log10(ΣE_mic / ΣE_uplink), over the frames with far-end echo (above −50 dBFS)
    /// from `settle` after the first microphone frame; and the ERLE of each 500 ms window from the
    /// first frame on (windows with too little echo left out).
    func erle(settle: ClockTime) throws -> (erle: Double, windows: [Double]) {
        let micEnergy = microphone.withLock { $0 }
        let outEnergy = uplink.withLock { $0 }
        guard let first = micEnergy.keys.min() else { throw MeasurementError("no microphone frames") }
        var inSum = 0.0, outSum = 0.0, frames = 0
        var windows: [Int: (Double, Double)] = [:]
        for (pts, energy) in micEnergy where energy > 480 * 100 * 100 {   // far end active (> −50 dBFS)
            guard let out = outEnergy[pts] else { continue }
            let window = Int((pts.nanoseconds - first.nanoseconds) / 500_000_000)
            windows[window, default: (0, 0)].0 += energy
            windows[window, default: (0, 0)].1 += out
            guard pts >= first + settle else { continue }
            inSum += energy; outSum += out; frames += 1
        }
        guard frames > 100 else { throw MeasurementError("only \(frames) frames with far-end speech matched") }
        let windowERLE = windows.keys.sorted().compactMap { key -> Double? in
            guard let (input, output) = windows[key], input > 480 * 100 * 100 * 10 else { return nil }
            return 10 * log10(input / max(output, 1))
        }
        return (10 * log10(inSum / max(outSum, 1)), windowERLE)
    }

    /// The uplink frames by seconds from the first microphone frame.
    func uplinkFrames() -> [(seconds: Double, energy: Double)] { relative(uplink.withLock { $0 }) }

    /// The microphone frames by seconds from the first one.
    func microphoneFrames() -> [(seconds: Double, energy: Double)] { relative(microphone.withLock { $0 }) }

    private func relative(_ frames: [ClockTime: Double]) -> [(seconds: Double, energy: Double)] {
        guard let first = microphone.withLock({ $0.keys.min() }) else { return [] }
        return frames.map { (seconds: (Double($0.key.nanoseconds) - Double(first.nanoseconds)) / 1e9, energy: $0.value) }.sorted { $0.seconds < $1.seconds }
    }

    static func energy(_ samples: [Int16]) -> Double { samples.reduce(0.0) { $0 + Double($1) * Double($1) } }
}
