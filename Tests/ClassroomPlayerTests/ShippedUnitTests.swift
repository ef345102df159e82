import Foundation
import Testing

/// The service as shipped: the unit's ExecStart expanded from the shipped settings (ShippedUnit)
/// and run, with a kiosk's boot as it happens — the sound server not up yet, or never, or a
/// setting left empty.
@Suite("The unit as shipped", .serialized)
struct ShippedUnitTests {
    /// Folders standing in for the kiosk user's home, runtime and state directories.
    private static func kiosk(in folder: URL) throws -> (home: URL, runtime: URL, state: URL) {
        let folders = ["home", "runtime", "state"].map { folder.appendingPathComponent($0) }
        for url in folders { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        try FileManager.default.createDirectory(at: folders[2].appendingPathComponent("classroom-player"), withIntermediateDirectories: true)
        return (folders[0], folders[1], folders[2])
    }

    @Test("booting before the sound server: the player waits and says so in STATUS=, plays once the server comes, with no live feed (LIVE_OPTIONS empty)",
          .enabled(if: ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE_START"] != nil, "needs scripts/with-pulseaudio.sh's server script"))
    func waitsForTheSoundServer() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (home, runtime, state) = try Self.kiosk(in: folder)
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 3)
        // AFTER_LESSON=exit: this test waits for the run to end by itself.
        let unit = try ShippedUnit(settings: try ShippedUnit.settings(["LESSON": lesson.path, "LIVE_OPTIONS": "", "AFTER_LESSON": "exit"]),
                                   home: home, runtime: runtime, state: state)
        #expect(!unit.arguments.contains("--live"))
        // A sound server of this test's own, started only after the player: its socket does not exist yet.
        let serverRuntime = folder.appendingPathComponent("pulse")
        try FileManager.default.createDirectory(at: serverRuntime, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: serverRuntime.path)
        let listener = try NotifyListener(in: folder)
        defer { listener.stop() }
        let player = try PlayerProcess(unit.arguments, in: folder, environment: unit.environment.merging([
            "NOTIFY_SOCKET": listener.path, "PULSE_SERVER": "unix:\(serverRuntime.path)/pulse/native", "DBUS_SESSION_BUS_ADDRESS": "",
        ]) { $1 })
        #expect(await waitUntil(timeout: .seconds(10)) { listener.messages.contains { $0.hasPrefix("STATUS=Waiting") } },
                "no STATUS=Waiting came: \(listener.messages); stderr: \(player.stderr)")
        try await Task.sleep(for: .seconds(1))
        #expect(player.process.isRunning, "the player gave up instead of waiting: \(player.stderr)")
        let server = ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE_START"] ?? ""
        try Self.runServerScript(["bash", server], runtime: serverRuntime)
        defer { try? Self.runServerScript(["pulseaudio", "--kill"], runtime: serverRuntime) }
        let status = try await player.exitStatus(within: .seconds(40))
        print("FIGURE as shipped, server started 1 s into the wait: exit \(status); notifications \(listener.messages.prefix(3))")
        #expect(status == 0, "stderr: \(player.stderr)")
        #expect(listener.count("READY=1") == 1, "the lesson should have reached the output: \(listener.messages)")
        #expect(player.stderr.contains("waiting up to 30 s") && player.stderr.contains("a sound server answered"), "stderr: \(player.stderr)")
    }

    @Test("no sound server at all: exit 69 (systemd tries again) after WAIT_FOR_SERVER seconds, naming OUTPUT= in the settings file")
    func noSoundServerIsRetried() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (home, runtime, state) = try Self.kiosk(in: folder)
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let unit = try ShippedUnit(settings: try ShippedUnit.settings(["LESSON": lesson.path, "LIVE_OPTIONS": "", "WAIT_FOR_SERVER": "1"]),
                                   home: home, runtime: runtime, state: state)
        let player = try PlayerProcess(unit.arguments, in: folder, environment: unit.environment.merging([
            "PULSE_SERVER": "unix:\(folder.path)/no-server/native", "DBUS_SESSION_BUS_ADDRESS": "",
        ]) { $1 })
        let status = try await player.exitStatus(within: .seconds(30))
        print("FIGURE as shipped with no sound server: exit \(status); \(player.stderr.split(separator: "\n").last ?? "")")
        #expect(status == 69, "stderr: \(player.stderr)")
        #expect(player.stderr.contains("OUTPUT= in \(home.path)/.config/classroom-player.env"), "stderr: \(player.stderr)")
        let restartPrevented = try String(contentsOf: ShippedUnit.unitFile, encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("RestartPreventExitStatus=") }?.split(separator: "=").last?.split(separator: " ") ?? []
        #expect(!restartPrevented.contains("69") && restartPrevented.contains("64"), "69 should be retried, 64 not: \(restartPrevented)")
    }

    @Test("a setting left empty (MIC=): exit 64, and the message names MIC= in the settings file, not only --mic")
    func emptySettingIsNamed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (home, runtime, state) = try Self.kiosk(in: folder)
        let unit = try ShippedUnit(settings: try ShippedUnit.settings(["LESSON": Fixtures.sample("lesson.webm"), "LIVE_OPTIONS": "", "MIC": ""]),
                                   home: home, runtime: runtime, state: state)
        let player = try PlayerProcess(unit.arguments, in: folder, environment: unit.environment.merging(["DBUS_SESSION_BUS_ADDRESS": ""]) { $1 })
        let status = try await player.exitStatus(within: .seconds(30))
        #expect(status == 64, "stderr: \(player.stderr)")
        #expect(player.stderr.contains("--mic") && player.stderr.contains("MIC= in \(home.path)/.config/classroom-player.env"), "stderr: \(player.stderr)")
    }

    @Test("the service runs a class: the microphone is on from the start, and the kiosk stays in class after the lesson until told to stop")
    func staysInClass() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (home, runtime, state) = try Self.kiosk(in: folder)
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 2)
        let mix = folder.appendingPathComponent("mix.wav")
        let unit = try ShippedUnit(settings: try ShippedUnit.settings(["LESSON": lesson.path, "LIVE_OPTIONS": "", "MIC": Fixtures.sample("student-mic.ogg"),
                                                                      "OUTPUT": "wav:\(mix.path)"]),
                                   home: home, runtime: runtime, state: state)
        let player = try PlayerProcess(unit.arguments, in: folder, environment: unit.environment.merging(["DBUS_SESSION_BUS_ADDRESS": ""]) { $1 })
        let socket = runtime.appendingPathComponent("classroom-player.sock").path
        #expect(await waitUntil(timeout: .seconds(20)) { player.stderr.contains(#""event":"lesson-ended""#) }, "stderr: \(player.stderr)")
        try await Task.sleep(for: .seconds(2))
        let status = try ControlClient(path: socket).ask(#"{"do":"status"}"#)
        let lessonState = (status["lesson"] as? [String: Any])?["state"] as? String
        let mic = status["mic"] as? [String: Any]
        print("FIGURE the shipped service 2 s after its lesson ended: running \(player.process.isRunning), lesson \(lessonState ?? "-"), "
              + "mic connected \(mic?["connected"] ?? "-"), \(mic?["frames"] ?? "-") frames")
        #expect(player.process.isRunning, "the service left the class when the lesson ended: \(player.stderr)")
        #expect(lessonState == "ended")
        #expect(mic?["connected"] as? Bool == true, "the microphone should be on from the start: \(status)")
        #expect((mic?["frames"] as? Double ?? 0) > 300, "about 4 s of microphone frames should have gone through: \(status)")
        let first = player.stderr.split(separator: "\n").firstIndex { $0.contains(#""event":"microphone""#) && $0.contains(#""connected":true"#) }
        let started = player.stderr.split(separator: "\n").firstIndex { $0.contains(#""event":"started""#) }
        #expect(first != nil && started != nil && first! > started!, "the microphone connects as the class starts: \(player.stderr)")
        #expect(try ControlClient(path: socket).ask(#"{"do":"stop"}"#)["ok"] as? Bool == true)
        #expect(try await player.exitStatus(within: .seconds(15)) == 0, "stderr: \(player.stderr)")
    }

    @Test("a settings file from before MIC_ON and AFTER_LESSON still runs a class: the unit's defaults fill them in; the file's values win")
    func unitDefaults() throws {
        let folder = URL(fileURLWithPath: "/tmp/kiosk")
        var old = try ShippedUnit.settings([:])
        old["MIC_ON"] = nil
        old["AFTER_LESSON"] = nil
        let defaults = try ShippedUnit(settings: old, home: folder, runtime: folder, state: folder).arguments
        #expect(defaults.contains("--mic-on=yes") && defaults.contains("stay"), "\(defaults)")
        let chosen = try ShippedUnit(settings: try ShippedUnit.settings(["MIC_ON": "no", "AFTER_LESSON": "exit"]), home: folder, runtime: folder, state: folder).arguments
        #expect(chosen.contains("--mic-on=no") && chosen.contains("exit") && !chosen.contains("stay"), "\(chosen)")
    }

    @Test("MIC_ON=maybe: exit 64, and the message names MIC_ON= in the settings file")
    func badMicOnIsNamed() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (home, runtime, state) = try Self.kiosk(in: folder)
        let unit = try ShippedUnit(settings: try ShippedUnit.settings(["LESSON": Fixtures.sample("lesson.webm"), "LIVE_OPTIONS": "", "MIC_ON": "maybe"]),
                                   home: home, runtime: runtime, state: state)
        let player = try PlayerProcess(unit.arguments, in: folder, environment: unit.environment.merging(["DBUS_SESSION_BUS_ADDRESS": ""]) { $1 })
        #expect(try await player.exitStatus(within: .seconds(30)) == 64, "stderr: \(player.stderr)")
        #expect(player.stderr.contains("--mic-on takes yes or no, not 'maybe'"), "stderr: \(player.stderr)")
        #expect(player.stderr.contains("from MIC_ON= in \(home.path)/.config/classroom-player.env"), "stderr: \(player.stderr)")
    }

    /// Runs the sound-server script or `pulseaudio --kill` for the server in `runtime`.
    private static func runServerScript(_ command: [String], runtime: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": runtime.path]) { $1 }.filter { $0.key != "PULSE_SERVER" }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlayerTestError.setupFailed("\(command) exited \(process.terminationStatus)") }
    }
}
