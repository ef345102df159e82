import ClassroomMeasurement
import Foundation

/// What the WebRTC room tests share: a folder, two network namespaces (Janus's and the kiosks'),
/// a silent lesson, speech in two bands (one per talker: the voice profile's noise suppression
/// takes a steady tone away), and kiosks started in the kiosks' namespace. Janus is started by
/// the test (`startJanus`), after it has put its credentials or certificates in `janusFolder`.
final class WebRTCRoomRig: @unchecked Sendable {
    // Immutable after init, but for `janus`, set once by the test's own task.
    let folder: URL
    let net: NetworkNamespaces
    /// The lesson every kiosk plays: silence, so that all it outputs is the room.
    let lesson: URL
    /// A teacher's speech in `teacherBand`, a student's in `studentBand`.
    let teacher: URL, student: URL
    /// Where janus-server.sh reads its secrets and HTTPS certificate.
    var janusFolder: URL { folder.appendingPathComponent("janus") }
    private(set) var janus: JanusInNamespace?

    static let teacherBand = 200...900, studentBand = 1500...3000
    static let available = NetworkNamespaces.available && JanusServer.available

    init(lessonSeconds: Int = 12) throws {
        folder = try Fixtures.folder()
        net = try NetworkNamespaces()
        lesson = folder.appendingPathComponent("silence.wav")
        teacher = folder.appendingPathComponent("teacher.wav")
        student = folder.appendingPathComponent("student.wav")
        try Fixtures.toneLesson(at: lesson, seconds: lessonSeconds, volume: 0)
        try Fixtures.speech("Good morning class. Today we read the story of the little red hen, page twelve. Please open your books and follow the words.",
                            at: teacher, band: Self.teacherBand)
        try Fixtures.speech("Thank you teacher. I have found page twelve, and the little red hen is planting the wheat all by herself.", at: student, band: Self.studentBand)
    }

    /// Starts Janus in its namespace (stopping one started before) and waits until it serves.
    @discardableResult
    func startJanus() async throws -> JanusInNamespace {
        janus?.stop()
        let started = try JanusInNamespace(net, folder: folder)
        janus = started
        guard await started.started() else { throw PlayerTestError.setupFailed("janus did not start: \(started.log)") }
        return started
    }

    /// A timeline that turns the microphone on at `seconds`.
    func microphoneOn(at seconds: Double) throws -> URL {
        let timeline = folder.appendingPathComponent("mic-\(seconds).json")
        try #"[{"at": \#(seconds), "do": "mic", "on": true}]"#.write(to: timeline, atomically: true, encoding: .utf8)
        return timeline
    }

    /// `file` played `times` over, as one WAV (a fake or file microphone that must talk on).
    func repeated(_ file: URL, times: Int) throws -> URL {
        let out = folder.appendingPathComponent("\(file.deletingPathExtension().lastPathComponent)-x\(times).wav")
        let sox = try Fixtures.start("/usr/bin/sox", Array(repeating: file.path, count: times) + [out.path])
        sox.waitUntilExit()
        return out
    }

    /// `command` in Janus's namespace (a proxy or a listener beside Janus), its output in `log`; stop it with `Fixtures.stop`.
    func startBesideJanus(_ command: [String], log: URL) throws -> Process {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = net.exec(in: net.server, command)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        return process
    }

    /// `classroom-player play LESSON --room ROOM --events … --no-stdin OPTIONS` in the kiosks' namespace (the rig's
    /// silent lesson unless `lesson` names another); its events file.
    func kiosk(_ name: String, room: String, lesson: URL? = nil, _ options: [String]) throws -> (PlayerProcess, URL) {
        let events = folder.appendingPathComponent("events-\(name).jsonl")
        let command = [PlayerProcess.executable.path, "play", (lesson ?? self.lesson).path, "--room", room, "--events", events.path, "--no-stdin"] + options
        return (try PlayerProcess(net.exec(in: net.kiosks, command), in: folder, executable: URL(fileURLWithPath: "/usr/sbin/ip")), events)
    }

    /// Drops (or again lets through) every UDP packet reaching Janus's namespace (nftables there):
    /// ICE and media fail while the HTTP API still answers.
    func janusTakesUDP(_ takes: Bool) throws {
        let steps: [[String]] = takes
            ? [["delete", "table", "inet", "room-test"]]
            : [["add", "table", "inet", "room-test"], ["add", "chain", "inet", "room-test", "input", "{ type filter hook input priority 0; }"],
               ["add", "rule", "inet", "room-test", "input", "meta", "l4proto", "udp", "drop"]]
        for step in steps {
            let nft = try Fixtures.start("/usr/sbin/ip", net.exec(in: net.server, ["/usr/sbin/nft"] + step))
            nft.waitUntilExit()
            guard nft.terminationStatus == 0 else { throw PlayerTestError.setupFailed("nft \(step.joined(separator: " ")) failed") }
        }
    }

    /// The UDP sockets (ADDRESS:PORT) bound to `address` in `namespace` whose owner `ss` names
    /// with `owner` (`pid=N,`): a WebRTC peer's media sockets.
    func udpSockets(in namespace: String, address: String, owner: String) throws -> [String] {
        let text = try Fixtures.output(of: "/usr/sbin/ip", net.exec(in: namespace, ["/usr/bin/ss", "-uanpH"]))
        return text.split(separator: "\n").filter { $0.contains(owner) }.compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).map(String.init).first { $0.hasPrefix(address + ":") }
        }
    }

    /// Janus's HTTP API in its namespace, for `room`.
    func api(room: Int, scheme: String = "http") -> String { "\(scheme)://\(net.serverAddress):8088/janus?room=\(room)" }

    /// A silent lesson of `seconds` (a kiosk that leaves before the others).
    func silence(seconds: Int) throws -> URL {
        let url = folder.appendingPathComponent("silence-\(seconds).wav")
        try Fixtures.toneLesson(at: url, seconds: seconds, volume: 0)
        return url
    }

    /// Stops Janus, removes the namespaces and the folder.
    func tearDown() {
        janus?.stop()
        net.tearDown()
        try? FileManager.default.removeItem(at: folder)
    }
}
