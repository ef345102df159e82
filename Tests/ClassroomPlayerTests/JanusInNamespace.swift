import ClassroomMeasurement
import Foundation

/// Debian's Janus (scripts/janus-server.sh: rooms 1234 with plain RTP, 2222 without, 3333 with a
/// pin) serving HTTP on port 8088 of a test's server namespace, its log in the test's folder.
final class JanusInNamespace: @unchecked Sendable {
    // Process is thread-safe for what is used here (run, terminate, isRunning).
    private let process: Process
    private let logFile: URL
    private let net: NetworkNamespaces

    init(_ net: NetworkNamespaces, folder: URL) throws {
        self.net = net
        let janusFolder = folder.appendingPathComponent("janus")
        logFile = folder.appendingPathComponent("janus.log")
        try FileManager.default.createDirectory(at: janusFolder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = net.exec(in: net.server, ["/bin/bash", Fixtures.root.appendingPathComponent("scripts/janus-server.sh").path, janusFolder.path, "8088", net.serverAddress])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: logFile)
        process.standardError = process.standardOutput
        try process.run()
    }

    /// What Janus logged so far.
    /// Janus's own process id: `ip netns exec` and janus-server.sh exec it in place. Its name is
    /// not Janus's in the Debian 13 lane, which runs the host's Janus through its own loader.
    var pid: Int32 { process.processIdentifier }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits (up to 10 s) until the HTTP (or HTTPS) API is up.
    func started() async -> Bool { await waitUntil(timeout: .seconds(10)) { self.log.contains("webserver started") } }

    func stop() { Fixtures.stop(process) }

    /// The room's participants as Janus lists them (display → muted), asked over plain HTTP from
    /// the kiosks' namespace (python3's urllib: one session, attach, listparticipants, destroy).
    func participants(room: Int) throws -> [String: Bool] {
        let script = """
            import json, sys, urllib.request
            api = sys.argv[1]
            def post(path, body):
                body["transaction"] = "t"
                request = urllib.request.Request(api + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
                return json.load(urllib.request.urlopen(request, timeout=5))
            session = post("", {"janus": "create"})["data"]["id"]
            handle = post("/%d" % session, {"janus": "attach", "plugin": "janus.plugin.audiobridge"})["data"]["id"]
            reply = post("/%d/%d" % (session, handle), {"janus": "message", "body": {"request": "listparticipants", "room": int(sys.argv[2])}})
            post("/%d" % session, {"janus": "destroy"})
            print(json.dumps({p.get("display", ""): p.get("muted", False) for p in reply["plugindata"]["data"].get("participants", [])}))
            """
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = net.exec(in: net.kiosks, ["/usr/bin/python3", "-c", script, "http://\(net.serverAddress):8088/janus", "\(room)"])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let list = try JSONSerialization.jsonObject(with: data) as? [String: Bool] else {
            throw PlayerTestError.setupFailed("janus listparticipants failed: \(String(decoding: data, as: UTF8.self))")
        }
        return list
    }
}
