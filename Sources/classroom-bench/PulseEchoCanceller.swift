import ClassroomMeasurement
import Foundation
import GStreamer
import Synchronization

/// The same far-end speech and echo path through PulseAudio's own canceller
/// (`module-echo-cancel aec_method=webrtc`), on the private server:
///
///     far end ──► pulsesink → echo-cancel sink ──► null sink "master" (the speaker)
///     echo (far end delayed, attenuated) ──► pulsesink → null sink "bus"; its monitor is the mic
///     echo-cancel source (bus.monitor minus the echo) ──► pulsesrc → processed energy
///     bus.monitor ──► pulsesrc → microphone energy
///
/// All four streams are in one pipeline on one clock. Unlike the engine measurement, PulseAudio
/// has to find the alignment itself from its streams' latencies, as it would on a kiosk.
struct PulseEchoCanceller {
    /// What the canceller runs: the voice profile's features (AEC, NS, HPF on by default) and, like
    /// it, no AGC: analog AGC turns the master source's volume down and so changes the mic itself,
    /// digital AGC lifts residual echo while the canceller converges.
    static let arguments = "analog_gain_control=0 digital_gain_control=0"

    private let modules: [String]
    private let sink: String
    private let bus: String
    private let source: String

    /// Loads the sinks and the canceller.
    init() throws {
        let tag = UInt32.random(in: 0...UInt32.max)
        let master = "bench_aec_master_\(tag)"
        bus = "bench_aec_bus_\(tag)"
        sink = "bench_aec_sink_\(tag)"
        source = "bench_aec_source_\(tag)"
        var loaded: [String] = []
        do {
            loaded.append(try PulseAudioControl.loadNullSink(master))
            loaded.append(try PulseAudioControl.loadNullSink(bus))
            loaded.append(try PulseAudioControl.pactl("load-module", "module-echo-cancel", "aec_method=webrtc",
                                                      "source_master=\(bus).monitor", "sink_master=\(master)",
                                                      "source_name=\(source)", "sink_name=\(sink)", "aec_args=\"\(Self.arguments)\""))
        } catch {
            loaded.reversed().forEach(PulseAudioControl.unload)
            throw error
        }
        modules = loaded
    }

    /// Unloads everything it loaded.
    func unload() { modules.reversed().forEach(PulseAudioControl.unload) }

    /// ERLE in dB, 10·log10(E_mic / E_processed), over the recording from `settle` after the
    /// echo starts to its end (energies summed over the whole window, so the canceller's own
    /// processing delay does not matter). Real time: about the speech's length plus 3 s.
    func erle(farEnd: [Int16], echoDelay: ClockTime, gain: Double = 0.5, settle: ClockTime = .seconds(2)) async throws -> Double {
        let delaySamples = Int(echoDelay.nanoseconds * 48_000 / 1_000_000_000)
        let echo = [Int16](repeating: 0, count: delaySamples) + farEnd.map { Int16(Double($0) * gain) }
        return try await Self.erle(playing: [(sink, farEnd), (bus, echo)], processed: source, microphone: "\(bus).monitor", settle: settle)
    }

    /// Plays each signal into its sink and records the canceller's `processed` source and the
    /// `microphone` side by side, all in one pipeline on one clock; ERLE in dB,
    /// 10·log10(E_mic / E_processed), from `settle` after the echo starts to the end. Real time.
    static func erle(playing signals: [(sink: String, samples: [Int16])], processed: String, microphone: String, settle: ClockTime) async throws -> Double {
        let caps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"
        let players = signals.indices.map { "appsrc name=play\($0) ! audioconvert ! pulsesink device=\(signals[$0].sink)" }.joined(separator: " ")
        let pipeline = try Pipeline.parse("""
            \(players) \
            pulsesrc device=\(processed) ! audioconvert ! audioresample ! \(caps) ! appsink name=processed sync=false \
            pulsesrc device=\(microphone) ! audioconvert ! audioresample ! \(caps) ! appsink name=mic sync=false
            """)
        pipeline.useClock(try Clock.system())
        let energies = WindowEnergies()
        var tokens: [SignalHandler] = []
        for (name, isMic) in [("processed", false), ("mic", true)] {
            let appsink = try pipeline.element(named: name, as: AppSink.self)
            tokens.append(try appsink.onNewSample { sample in
                guard let pts = sample.buffer?.pts, let samples = sample.buffer?.int16Samples() else { return }
                energies.record(pts: pts, samples: samples, microphone: isMic)
            })
        }
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        // Each starts 1 s in: a new stream on a null sink holds its first second (GSTREAMER-NOTES §6).
        let lead = 48_000
        for (index, signal) in signals.enumerated() {
            let appsrc = try pipeline.element(named: "play\(index)", as: AppSource.self)
            try appsrc.configure(audio: format, isLive: false, doTimestamp: false, limits: .init(), whenFull: .block)
            let padded = [Int16](repeating: 0, count: lead) + signal.samples
            var start = 0
            while start < padded.count {
                let end = min(padded.count, start + 480)
                try appsrc.push(Array(padded[start..<end]), pts: .frames(start, rate: 48_000))
                start = end
            }
            try appsrc.endOfStream()
        }
        try pipeline.setState(.playing)
        defer { _ = try? pipeline.setState(.null); tokens.forEach { $0.disconnect() } }
        let longest = signals.map(\.samples.count).max() ?? 0
        try await Task.sleep(for: .seconds(Double(longest + lead) / 48_000 + 1.5))
        return try energies.erle(settle: settle)
    }

    /// The far-end speech as 48 kHz mono samples.
    static func decode(_ path: String) throws -> [Int16] {
        let pipeline = try Pipeline.parse("filesrc location=\(path) ! wavparse ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1 ! appsink name=out sync=false")
        let sink = try pipeline.element(named: "out", as: AppSink.self)
        try pipeline.setState(.playing)
        defer { _ = try? pipeline.setState(.null) }
        var samples: [Int16] = []
        while let sample = sink.pull(timeout: .seconds(5)), let buffer = sample.buffer { samples += buffer.int16Samples() }
        guard !samples.isEmpty else { throw BenchError("could not decode \(path)") }
        return samples
    }
}

/// Energies of the recorded buffers by running time, written on streaming threads.
private final class WindowEnergies: Sendable {
    private let microphone = Mutex<[(ClockTime, Double, Int)]>([])   // pts, energy, samples
    private let processed = Mutex<[(ClockTime, Double, Int)]>([])

    func record(pts: ClockTime, samples: [Int16], microphone isMic: Bool) {
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        if isMic { microphone.withLock { $0.append((pts, energy, samples.count)) } } else { processed.withLock { $0.append((pts, energy, samples.count)) } }
    }

    func erle(settle: ClockTime) throws -> Double {
        let mic = microphone.withLock { $0 }, out = processed.withLock { $0 }
        // The echo starts at the first buffer above −50 dBFS.
        guard let start = mic.first(where: { $0.1 / Double(max($0.2, 1)) > 100 * 100 })?.0, let end = mic.last?.0 else {
            throw BenchError("PulseAudio's microphone stayed silent")
        }
        let window = (start + settle)..<end
        let micEnergy = mic.filter { window.contains($0.0) }.reduce(0.0) { $0 + $1.1 }
        let outEnergy = out.filter { window.contains($0.0) }.reduce(0.0) { $0 + $1.1 }
        guard micEnergy > 0, out.contains(where: { window.contains($0.0) }) else { throw BenchError("PulseAudio's canceller produced nothing") }
        return 10 * log10(micEnergy / max(outEnergy, 1))
    }
}
