import ClassroomMeasurement
import Foundation

/// A teacher in a real browser: Debian's headless Chromium in a test's network namespace, running
/// scripts/browser-teacher/teacher.html (Janus's own janus.js) with a WAV as its microphone. What
/// the page says — its join states and, every 500 ms, the RMS of what the room sends it, measured
/// by a WebAudio AnalyserNode — is read back from Chromium's stderr, where its console goes.
final class BrowserTeacher: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, isRunning, kill).
    private let process: Process
    private let logFile: URL

    static let page = Fixtures.root.appendingPathComponent("scripts/browser-teacher/teacher.html")
    private static let chromium = "/usr/bin/chromium"
    private static let scripts = [JanusServer.javascript, "/usr/share/javascript/webrtc-adapter/adapter.js"]

    /// Whether Chromium, janus.js and adapter.js are installed (scripts/setup.sh).
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && scripts.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    /// One line the page said: a state (`joined`, `webrtc-up`, `failed`, …) or a level, at a time of the page's clock (Date.now()).
    struct Report {
        let at: Date
        let state: String?
        /// The remote track's RMS in dBFS over the analyser's last 32768 samples (-200 before there is a track).
        let rms: Double?
    }

    /// Starts the page in `namespace`, joining `room` through Janus's HTTP API at `server`
    /// (`http://HOST:PORT/janus`) as `display`, `microphone` (a WAV, looped) its voice.
    init(_ net: NetworkNamespaces, in namespace: String, server: String, room: Int, display: String, microphone: URL, folder: URL) throws {
        logFile = folder.appendingPathComponent("chromium-\(display).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let query = [("server", server), ("room", "\(room)"), ("display", display),
                     ("janus_js", URL(fileURLWithPath: JanusServer.javascript).absoluteString)]
            .map { "\($0)=\(BrowserTeacher.escaped($1))" }.joined(separator: "&")
        let arguments = [
            BrowserTeacher.chromium, "--headless=new",
            "--no-sandbox",                                         // root, in a namespace
            "--user-data-dir=\(folder.appendingPathComponent("chromium-profile-\(display)").path)",
            "--no-first-run",
            "--use-fake-ui-for-media-stream",                       // getUserMedia granted without a prompt
            "--use-fake-device-for-media-stream",
            "--use-file-for-fake-audio-capture=\(microphone.path)", // the fake microphone plays this WAV, looped
            "--autoplay-policy=no-user-gesture-required",           // the AudioContext and the muted element run unprompted
            "--enable-logging=stderr", "--v=0",                     // console.log lines on stderr
            BrowserTeacher.page.absoluteString + "?" + query,
        ]
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = net.exec(in: namespace, arguments)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: logFile)
        process.standardError = process.standardOutput
        try process.run()
    }

    /// Everything the page said so far, in order. Chromium writes a console line as
    /// `[…:INFO:CONSOLE:26] "teacher {json}", source: file:///… (26)`.
    var reports: [Report] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "\"teacher "), let end = line.range(of: "\", source: ", options: .backwards), start.upperBound <= end.lowerBound,
                  let fields = (try? JSONSerialization.jsonObject(with: Data(line[start.upperBound..<end.lowerBound].utf8))) as? [String: Any],
                  let at = fields["at"] as? Double else { return nil }
            return Report(at: Date(timeIntervalSince1970: at / 1000), state: fields["state"] as? String, rms: fields["rms"] as? Double)
        }
    }

    /// The states the page went through, in order.
    var states: [String] { reports.compactMap(\.state) }

    /// When the page first reached `state`.
    func time(of state: String) -> Date? { reports.first { $0.state == state }?.at }

    /// The levels the page reported between two times.
    func levels(from start: Date, to end: Date) -> [Double] { reports.filter { $0.at >= start && $0.at <= end }.compactMap(\.rms) }

    /// The page's lines (states, failures) and Chromium's own errors, for a failing test's message; no level lines.
    var log: String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.contains("\"rms\":") && !$0.contains("dbus") }.suffix(60).joined(separator: "\n")
    }

    /// Waits (up to `timeout`) until the page reaches `state`; false at once when it says it failed.
    func reached(_ state: String, within timeout: Duration) async -> Bool {
        _ = await waitUntil(timeout: timeout) { let states = self.states; return states.contains(state) || states.contains("failed") || !self.process.isRunning }
        return states.contains(state)
    }

    func stop() { Fixtures.stop(process) }

    /// A query value as URLSearchParams reads it back: only unreserved characters left as they are ('+' would be a space).
    private static func escaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? value
    }
}
