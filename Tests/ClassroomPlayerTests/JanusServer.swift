import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private Janus for one test, started by `scripts/janus-server.sh` (its own config folder, the
/// HTTP API on 127.0.0.1 only, AudioBridge rooms 1234 with plain RTP, 2222 without, 3333 with a pin).
final class JanusServer: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, terminate, isRunning).
    let folder: URL
    let port: Int
    private var process: Process?

    /// Whether `scripts/janus-server.sh --check` finds a Janus to run: Debian 12's package, or on
    /// Debian 13 (which packages none) one from `CLASSROOM_AUDIO_JANUS_ROOT`. The one place every
    /// room suite asks; when there is none the script's reason goes to stderr once, and the suites skip.
    static let available: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Fixtures.root.appendingPathComponent("scripts/janus-server.sh").path, "--check"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Where Janus's own web client (janus.js) is: Debian 12's libjs-janus-gateway, or the same
    /// package in `CLASSROOM_AUDIO_JANUS_ROOT`'s system, beside the Janus that runs.
    static var javascript: String {
        let path = "/usr/share/javascript/janus-gateway/janus.js"
        if FileManager.default.fileExists(atPath: path) { return path }
        return (ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_JANUS_ROOT"] ?? "") + path
    }

    init(in folder: URL) throws {
        self.folder = folder.appendingPathComponent("janus")
        port = try Fixtures.freeTCPPort()
    }

    /// Starts Janus and waits (up to 10 s) until its HTTP API answers.
    func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Fixtures.root.appendingPathComponent("scripts/janus-server.sh").path, folder.path, "\(port)"]
        process.standardInput = FileHandle.nullDevice
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("janus.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        self.process = process
        guard await waitUntil(timeout: .seconds(10), { (try? self.request(["janus": "info"]))?["janus"] as? String == "server_info" }) else {
            throw PlayerTestError.setupFailed("janus did not answer on port \(port): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
    }

    /// Kills Janus at once (a crash, not a shutdown).
    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The room's participants as Janus lists them (display → muted).
    func participants(room: Int) throws -> [String: Bool] {
        let session = try create()
        defer { _ = try? request(["janus": "destroy"], path: "/\(session)") }
        let handle = try attach(session)
        let reply = try request(["janus": "message", "body": ["request": "listparticipants", "room": room]], path: "/\(session)/\(handle)")
        let list = ((reply["plugindata"] as? [String: Any])?["data"] as? [String: Any])?["participants"] as? [[String: Any]] ?? []
        return Dictionary(list.compactMap { entry in (entry["display"] as? String).map { ($0, entry["muted"] as? Bool ?? false) } }, uniquingKeysWith: { $1 })
    }

    /// Joins `room` as a plain-RTP participant receiving on `port`; returns Janus's RTP port to send to.
    func joinRTP(room: Int, display: String, port: Int) async throws -> Int {
        let session = try create()
        let handle = try attach(session)
        _ = try request(["janus": "message", "body": ["request": "join", "room": room, "display": display,
                                                       "rtp": ["ip": "127.0.0.1", "port": port, "payload_type": 111]]], path: "/\(session)/\(handle)")
        // Other participants' events may come first (someone unmuting as we join): read on to ours.
        var seen: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(10)
        while true {
            guard Date() < deadline else { throw PlayerTestError.setupFailed("the RTP participant could not join: \(seen)") }
            let polled = try requestAny(nil, path: "/\(session)?maxev=5")
            let events = (polled as? [[String: Any]]) ?? [(polled as? [String: Any]) ?? [:]]
            seen += events
            for event in events {
                guard let data = (event["plugindata"] as? [String: Any])?["data"] as? [String: Any] else { continue }
                if data["error_code"] != nil { throw PlayerTestError.setupFailed("the RTP participant could not join: \(data)") }
                if let rtp = data["rtp"] as? [String: Any], let port = rtp["port"] as? Int {
                    // Kept alive by keepalives every 10 s (sessions expire after 60 s without a request).
                    keepAlive(session)
                    return port
                }
            }
        }
    }

    private func keepAlive(_ session: UInt64) {
        Thread.detachNewThread { [self] in
            while (try? request(["janus": "keepalive"], path: "/\(session)")) != nil { Thread.sleep(forTimeInterval: 10) }
        }
    }

    private func create() throws -> UInt64 {
        guard let id = ((try request(["janus": "create"]))["data"] as? [String: Any])?["id"] as? NSNumber else { throw PlayerTestError.setupFailed("janus create") }
        return id.uint64Value
    }

    private func attach(_ session: UInt64) throws -> UInt64 {
        guard let id = ((try request(["janus": "attach", "plugin": "janus.plugin.audiobridge"], path: "/\(session)"))["data"] as? [String: Any])?["id"] as? NSNumber else {
            throw PlayerTestError.setupFailed("janus attach")
        }
        return id.uint64Value
    }

    private func request(_ body: [String: Any], path: String = "") throws -> [String: Any] {
        var body = body
        body["transaction"] = UUID().uuidString
        guard let reply = try requestAny(body, path: path) as? [String: Any] else { throw PlayerTestError.setupFailed("janus: not an object") }
        return reply
    }

    private func requestAny(_ body: [String: Any]?, path: String) throws -> Any {
        guard let url = URL(string: "http://127.0.0.1:\(port)/janus\(path)") else { throw PlayerTestError.setupFailed("url") }
        var request = URLRequest(url: url, timeoutInterval: 5)
        if let body {
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, _, _ in box.data = data; done.signal() }.resume()
        guard done.wait(timeout: .now() + 6) == .success, let data = box.data else { throw PlayerTestError.setupFailed("janus did not answer") }
        return try JSONSerialization.jsonObject(with: data)
    }

    deinit { kill() }
}

/// Carries one reply from URLSession's callback to the waiting test.
private final class ResultBox: @unchecked Sendable {
    // Written before the semaphore is signalled, read after the wait.
    var data: Data?
}
