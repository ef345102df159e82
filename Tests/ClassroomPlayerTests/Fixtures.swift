import ClassroomNetwork
import Foundation
import Testing

/// Media the tests make, files they read back, and the repository's samples.
enum Fixtures {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A sample from `samples/`.
    static func sample(_ name: String) -> String { root.appendingPathComponent("samples/\(name)").path }

    /// A fresh temporary folder.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("classroom-player-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs gst-launch-1.0 to the end.
    static func gstLaunch(_ description: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = ["-q"] + description.split(separator: " ").map(String.init)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("gst-launch-1.0 \(description)") }
    }

    /// A WAV lesson: a sine of `frequency` Hz at amplitude `volume` (0 = digital silence), 48 kHz stereo.
    static func toneLesson(at url: URL, seconds: Int, frequency: Int = 440, volume: Double = 0.1) throws {
        let wave = volume > 0 ? "wave=sine freq=\(frequency) volume=\(volume)" : "wave=silence"
        try gstLaunch("audiotestsrc num-buffers=\(seconds * 10) samplesperbuffer=4800 \(wave) ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! wavenc ! filesink location=\(url.path)")
    }

    /// A UDP port nobody uses now on 127.0.0.1.
    static func freeUDPPort() throws -> Int { try LocalPort.free(.udp) }

    /// A fresh SRTP master key and salt (30 bytes, base64, as `ffmpeg -srtp_out_params` takes
    /// them) in `name`, readable by its owner only; the file and the key.
    static func srtpKeyFile(_ name: String, in folder: URL) throws -> (URL, String) {
        let key = Data((0..<30).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let url = folder.appendingPathComponent(name)
        try Data((key + "\n").utf8).write(to: url)
        chmod(url.path, 0o600)
        return (url, key)
    }

    /// A TCP port nobody listens on now on 127.0.0.1.
    static func freeTCPPort() throws -> Int { try LocalPort.free(.tcp) }

    /// Starts a helper program (gst-launch-1.0, ffmpeg) in the background; the caller ends it.
    ///
    /// SIGINT and SIGTERM are unblocked for it: `Process.run()` spawns from the calling thread, and
    /// the child keeps that thread's signal mask — libdispatch's threads block SIGHUP, SIGINT,
    /// SIGQUIT, SIGTERM and more — so `gst-launch-1.0 -e` told to finish with SIGINT never heard it
    /// and ended only at sdpdemux's 10 s UDP timeout, or never, when it had had no packet.
    static func start(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        var stopping = sigset_t(), previous = sigset_t()
        sigemptyset(&stopping)
        sigaddset(&stopping, SIGINT)
        sigaddset(&stopping, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopping, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
        return process
    }

    /// Starts a helper that stands for another machine (a sender, the network between it and the
    /// kiosk) at the engine feeders' real-time priority (SCHED_RR 4) where this process may grant
    /// it. On the shared 2-core test machine the other lane's real-time passes keep a normal-priority
    /// sender and relay off the CPU for tens of milliseconds: network jitter that a real sender's
    /// machine does not add, heard as silence beyond the jitter buffer. At normal priority where it
    /// may not (said once).
    static func startPeer(_ executable: String, _ arguments: [String]) throws -> Process {
        guard realtimePeers else { return try start(executable, arguments) }
        return try start("/usr/bin/chrt", ["--rr", "4", executable] + arguments)
    }

    /// Whether helpers may run at SCHED_RR 4 here (root, or an rtprio limit of 4).
    private static let realtimePeers: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/chrt")
        probe.arguments = ["--rr", "4", "/bin/true"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        let allowed = (try? probe.run()).map { probe.waitUntilExit(); return probe.terminationStatus == 0 } ?? false
        if !allowed { print("NOTE: test senders and relays run at normal priority (SCHED_RR 4 was refused): a loaded machine reaches the player as network jitter") }
        return allowed
    }()

    /// Ends a helper started by `start` and waits for it. SIGKILL, not `terminate()`: it cannot be
    /// blocked or handled, and children started any other way keep the test's blocked signals
    /// (gst-launch-1.0 and python3 helpers told with SIGTERM outlived every test run, found as orphans).
    static func stop(_ process: Process?) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits at most `timeout` for a helper that was told to end (SIGINT) or ends by itself; kills
    /// it and records `what` when it does not, so a receiver that heard nothing fails the test
    /// instead of holding the pass until CI's limit.
    static func finish(_ process: Process, within timeout: Duration, _ what: @autoclosure () -> String) async {
        if await waitUntil(timeout: timeout, { !process.isRunning }) { process.waitUntilExit(); return }
        Issue.record("\(what()) did not end within \(timeout); killed")
        stop(process)
    }

    /// ffmpeg sending a sine as RTP in real time: `codec` libopus (payload type `payloadType`) or pcm_mulaw.
    static func ffmpegTone(frequency: Int, seconds: Int, codec: String, payloadType: Int? = nil, port: Int) throws -> Process {
        var arguments = ["-hide_banner", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds)", "-ac", "1"]
        if codec == "pcm_mulaw" { arguments += ["-ar", "8000"] }
        arguments += ["-c:a", codec]
        if let payloadType { arguments += ["-payload_type", "\(payloadType)"] }
        arguments += ["-f", "rtp", "rtp://127.0.0.1:\(port)"]
        return try start("/usr/bin/ffmpeg", arguments)
    }

    /// Speech from espeak-ng, 48 kHz mono, band-limited to `band` Hz (sox's sinc filter) so two talkers can be told apart.
    static func speech(_ text: String, at url: URL, band: ClosedRange<Int>) throws {
        let raw = url.deletingPathExtension().appendingPathExtension("raw.wav")
        for (program, arguments) in [("/usr/bin/espeak-ng", ["-w", raw.path, text]),
                                     ("/usr/bin/sox", [raw.path, "-r", "48000", url.path, "sinc", "\(band.lowerBound)-\(band.upperBound)", "gain", "-n", "-6"])] {
            let process = try start(program, arguments)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("\(program) \(arguments.joined(separator: " "))") }
        }
    }

    /// The RMS level (dBFS) of channel 1 of a WAV between two times, within a frequency band (sox's sinc filter and stats).
    static func bandLevel(_ url: URL, from start: Double, to end: Double, band: ClosedRange<Int>) throws -> Double {
        let text = try output(of: "/usr/bin/sox", [url.path, "-n", "trim", "\(start)", "=\(end)", "remix", "1", "sinc", "\(band.lowerBound)-\(band.upperBound)", "stats"], from: .standardError)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RMS lev dB") }),
              let value = line.split(separator: " ").last.flatMap({ Double($0) }) else {
            return text.contains("RMS lev dB") ? -.infinity : -200
        }
        return value
    }

    /// How long a recording lasts, in seconds (soxi).
    static func duration(_ url: URL) throws -> Double {
        let text = try output(of: "/usr/bin/soxi", ["-D", url.path])
        guard let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw PlayerTestError.setupFailed("soxi cannot read \(url.path): \(text)") }
        return seconds
    }

    /// Which of a helper's outputs `output(of:)` reads.
    enum Stream { case standardOutput, standardError }

    /// What a helper that ends by itself writes on `stream` (the other is discarded), once it ended.
    static func output(of executable: String, _ arguments: [String], from stream: Stream = .standardOutput) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = stream == .standardOutput ? pipe : FileHandle.nullDevice
        process.standardError = stream == .standardError ? pipe : FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The median RMS level (dBFS) of 100 ms windows of channel 1 between two times, within a
    /// frequency band: a single click (a lost packet) does not move it, a voice that is there does.
    static func medianBandLevel(_ url: URL, from start: Double, to end: Double, band: ClosedRange<Int>) throws -> Double {
        let filtered = url.deletingPathExtension().appendingPathExtension("band-\(band.lowerBound)-\(band.upperBound).wav")
        defer { try? FileManager.default.removeItem(at: filtered) }
        let process = try Fixtures.start("/usr/bin/sox", [url.path, filtered.path, "remix", "1", "sinc", "\(band.lowerBound)-\(band.upperBound)"])
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("sox could not filter \(url.path)") }
        let audio = try WAVFile(filtered)
        let windows = stride(from: start, to: min(end, audio.seconds) - 0.1, by: 0.1).map { audio.rms(from: $0, to: $0 + 0.1) }.sorted()
        return windows.isEmpty ? -.infinity : windows[windows.count / 2]
    }

    /// The event lines of an events file, parsed.
    static func events(_ url: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The events called `name`.
    static func events(_ url: URL, named name: String) -> [[String: Any]] {
        events(url).filter { $0["event"] as? String == name }
    }
}

/// A 16-bit PCM WAV read back: its header checked against the file, its samples as Float.
struct WAVFile {
    let rate: Int
    let channels: Int
    /// Channel 0, −1…1.
    let samples: [Float]
    /// Whether the RIFF and data sizes in the header match the file (a finalised file).
    let headerMatchesFile: Bool

    init(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        guard data.count >= 44, String(decoding: data[0..<4], as: UTF8.self) == "RIFF", String(decoding: data[8..<12], as: UTF8.self) == "WAVE" else {
            throw PlayerTestError.setupFailed("\(url.path) is not a WAV file (\(data.count) bytes)")
        }
        func u32(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24 }
        func u16(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }
        var offset = 12
        var rate = 0, channels = 0, bits = 0
        var dataRange: Range<Int>?
        var declaredData = 0
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " { channels = u16(offset + 10); rate = u32(offset + 12); bits = u16(offset + 22) }
            if id == "data" {
                declaredData = size
                dataRange = (offset + 8)..<min(data.count, offset + 8 + size)
                break
            }
            offset += 8 + size + (size & 1)
        }
        guard let dataRange, bits == 16, channels > 0 else { throw PlayerTestError.setupFailed("\(url.path): no 16-bit data chunk") }
        self.rate = rate
        self.channels = channels
        headerMatchesFile = u32(4) == data.count - 8 && dataRange.lowerBound + declaredData == data.count
        var samples: [Float] = []
        samples.reserveCapacity(dataRange.count / (2 * channels))
        var index = dataRange.lowerBound
        while index + 2 * channels <= dataRange.upperBound {
            samples.append(Float(Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8)) / 32768)
            index += 2 * channels
        }
        self.samples = samples
    }

    /// Seconds of audio.
    var seconds: Double { Double(samples.count) / Double(rate) }

    /// RMS in dBFS of channel 0 between two times.
    func rms(from start: Double, to end: Double) -> Double {
        let lower = max(0, Int(start * Double(rate))), upper = min(samples.count, Int(end * Double(rate)))
        guard upper > lower else { return -.infinity }
        var sum = 0.0
        for sample in samples[lower..<upper] { sum += Double(sample) * Double(sample) }
        return 10 * log10(max(sum / Double(upper - lower), 1e-20))
    }

    /// The first time a 50 ms window rises above `threshold` dBFS.
    func onset(above threshold: Double) -> Double? {
        stride(from: 0.0, to: seconds, by: 0.05).first { rms(from: $0, to: $0 + 0.05) > threshold }
    }
}
