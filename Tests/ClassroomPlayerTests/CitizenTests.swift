import Foundation
import Testing

/// Whether the tests run against the private PulseAudio server of scripts/with-pulseaudio.sh.
private let pulseServer = ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1"

@Suite("classroom-player as a Linux citizen: systemd notify and watchdog, the unit", .serialized)
struct CitizenTests {
    @Test("systemd-analyze verify accepts the unit: Type=notify with a watchdog, and no warning")
    func unitVerifies() throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOf: Fixtures.root.appendingPathComponent("packaging/classroom-player.service"), encoding: .utf8)
        #expect(text.contains("\nType=notify\n") && text.contains("\nWatchdogSec="), "the unit should be Type=notify with WatchdogSec=")
        let execStart = text.components(separatedBy: "ExecStart=").dropFirst().first?.components(separatedBy: "\n").first ?? ""
        #expect(execStart.contains(" $LIVE_OPTIONS ") && !execStart.contains("--live"),
                "ExecStart should take the peers from $LIVE_OPTIONS unbraced (an empty setting is no --live at all), not \(execStart)")
        // verify checks that ExecStart's program exists: point it at the one just built.
        let unit = folder.appendingPathComponent("classroom-player.service")
        try text.replacingOccurrences(of: "/usr/local/bin/classroom-player", with: PlayerProcess.executable.path).write(to: unit, atomically: true, encoding: .utf8)
        let runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["verify", "--user", unit.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": runtime.path]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && said.isEmpty, "systemd-analyze verify --user refused packaging/classroom-player.service (exit \(process.terminationStatus)): \(said)")
    }

    @Test("Under systemd: READY=1 once audio reached the output, STATUS with the lesson, WATCHDOG=1 while it plays, STOPPING=1 last")
    func notifiesInOrder() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 3)
        let listener = try NotifyListener(in: folder)
        defer { listener.stop() }
        let player = try PlayerProcess(["play", lesson.path, "--output", "wav:\(folder.appendingPathComponent("mix.wav").path)", "--no-stdin"], in: folder,
                                       environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000"])
        #expect(try await player.exitStatus(within: .seconds(30)) == 0, "stderr: \(player.stderr)")
        #expect(await waitUntil(timeout: .seconds(2)) { listener.count("STOPPING=1") > 0 }, "no STOPPING=1 came: \(listener.messages)")
        let messages = listener.messages
        print("FIGURE notifications: \(messages.count), \(listener.count("WATCHDOG=1")) watchdog pings over a 3 s lesson; first \(messages.first ?? "none")")
        #expect(messages.first?.hasPrefix("READY=1") == true, "READY=1 should come first, got \(messages)")
        #expect(listener.count("READY=1") == 1)
        #expect(listener.count("WATCHDOG=1") >= 4, "a ping every 0.5 s over 3 s of audio was expected: \(messages)")
        #expect(messages.last?.hasPrefix("STOPPING=1") == true, "STOPPING=1 should come last, got \(messages)")
        #expect(messages.contains { $0.contains("STATUS=Playing tone.wav at ") && $0.contains(" of 3.0 s") }, "STATUS should name the lesson and its position: \(messages)")
    }

    @Test("A wedged output (the sound server stopped with SIGSTOP) stops the watchdog pings while STATUS goes on; they come back with it",
          .enabled(if: pulseServer, "needs the private PulseAudio server of scripts/with-pulseaudio.sh"))
    func watchdogStopsWhenWedged() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 30)
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"],
              let text = try? String(contentsOfFile: "\(runtime)/pulse/pid", encoding: .utf8), let server = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Issue.record("no PulseAudio pid file in $XDG_RUNTIME_DIR/pulse: run the test through scripts/with-pulseaudio.sh")
            return
        }
        let listener = try NotifyListener(in: folder)
        defer { listener.stop() }
        let player = try PlayerProcess(["play", lesson.path, "--output", "default", "--no-stdin"], in: folder,
                                       environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000"])
        #expect(await waitUntil(timeout: .seconds(15)) { listener.count("WATCHDOG=1") >= 2 }, "no watchdog pings while playing: \(listener.messages); stderr: \(player.stderr)")

        kill(server, SIGSTOP)
        defer { kill(server, SIGCONT) }   // whatever happens, the server of the other tests comes back
        try await Task.sleep(for: .milliseconds(1500))   // what was queued before the sink drains
        let wedged = ContinuousClock.now
        try await Task.sleep(for: .seconds(3))
        let during = listener.messages(since: wedged)
        kill(server, SIGCONT)
        let resumed = ContinuousClock.now
        #expect(await waitUntil(timeout: .seconds(5)) { listener.messages(since: resumed).contains { $0.contains("WATCHDOG=1") } },
                "the pings did not come back once the sound server went on: \(listener.messages(since: resumed))")
        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(15)) == 143, "stderr: \(player.stderr)")
        #expect(await waitUntil(timeout: .seconds(2)) { listener.count("STOPPING=1") == 1 })

        print("FIGURE wedged output: \(during.filter { $0.contains("WATCHDOG=1") }.count) pings and \(during.count) notifications in 3 s with the sound server stopped")
        #expect(!during.contains { $0.contains("WATCHDOG=1") }, "WATCHDOG=1 was sent while the output was wedged: \(during)")
        #expect(during.count >= 4, "STATUS should go on while wedged (the player is alive, its output is not): \(during)")
        #expect(during.contains { $0.contains("has not advanced") }, "STATUS should say the output is stuck: \(during)")
    }

    @Test("Under systemd (JOURNAL_STREAM), events and alarms go to the journal with MESSAGE_ID, CLASSROOM_EVENT, PRIORITY, ALARM_NUMBER, ALARM_OWNER, not to standard error",
          .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "needs root for a mount namespace with the test's own journal socket"))
    func journalFields() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 5, volume: 0)
        // The journal's socket is /run/systemd/journal/socket: a private mount puts the test's there.
        let run = folder.appendingPathComponent("run-systemd")
        try FileManager.default.createDirectory(at: run.appendingPathComponent("journal"), withIntermediateDirectories: true)
        let journal = try NotifyListener(at: run.appendingPathComponent("journal/socket").path)
        defer { journal.stop() }
        let rtpPort = try Fixtures.freeUDPPort()
        let stderrFile = folder.appendingPathComponent("stderr.txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        // JOURNAL_STREAM names standard error's device and inode, as systemd sets it for a unit.
        process.arguments = ["-m", "sh", "-c", "mount --bind \"$1\" /run/systemd && JOURNAL_STREAM=$(stat -L -c %d:%i /proc/$$/fd/2) exec \"$2\" play \"$3\" "
                             + "--live teacher=rtp://127.0.0.1:\(rtpPort) --output null --no-stdin", "sh", run.path, PlayerProcess.executable.path, lesson.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
        #expect(await waitUntil(timeout: .seconds(15)) { journal.messages.contains { $0.contains("CLASSROOM_EVENT=started") } }, "no started entry reached the journal: \(journal.messages)")
        try Fixtures.gstLaunch("audiotestsrc is-live=true num-buffers=50 samplesperbuffer=960 wave=sine freq=1000 volume=0.2 "
                               + "! audio/x-raw,rate=48000,channels=1 ! opusenc ! rtpopuspay pt=96 ! udpsink host=127.0.0.1 port=\(rtpPort)")
        #expect(await waitUntil(timeout: .seconds(20)) { !process.isRunning }, "the player did not end")
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "exit \(process.terminationStatus); stderr: \(stderr)")

        let entries = journal.messages.map { datagram in
            Dictionary(datagram.split(separator: "\n").compactMap { line -> (String, String)? in
                guard let equals = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<equals]), String(line[line.index(after: equals)...]))
            }, uniquingKeysWith: { first, _ in first })
        }
        let alarm = entries.first { $0["CLASSROOM_EVENT"] == "alarm" && $0["ALARM_NUMBER"] == "1025" }
        print("FIGURE journal: \(entries.count) entries; the 1025: \(alarm.map { $0.filter { $0.key != "MESSAGE" } } ?? [:])")
        #expect(alarm?["ALARM_OWNER"] == "rtc-teacher" && alarm?["ALARM_CODE"] == "rtcAudioInterrupted" && alarm?["PRIORITY"] == "4",
                "the 1025 should be a warning with its code and owner: \(alarm ?? [:]); entries: \(entries.map { $0["CLASSROOM_EVENT"] ?? "?" })")
        // Fixed per alarm code in every run and release, so journalctl MESSAGE_ID=… finds them all.
        #expect(alarm?["MESSAGE_ID"] == "a33d92b28e1292f9ab1150369a20532c", "MESSAGE_ID of alarm 1025 changed: \(alarm?["MESSAGE_ID"] ?? "none")")
        #expect(alarm?["MESSAGE"]?.hasPrefix("{") == true && alarm?["MESSAGE"]?.contains("\"number\":1025") == true, "MESSAGE should be the event's JSON line")
        let started = entries.first { $0["CLASSROOM_EVENT"] == "started" }
        #expect(started?["PRIORITY"] == "5" && started?["MESSAGE_ID"] != alarm?["MESSAGE_ID"], "started: \(started ?? [:])")
        #expect(entries.contains { $0["CLASSROOM_EVENT"] == "stopped" })
        #expect(!stderr.contains("\"event\":"), "events should go to the journal, not standard error: \(stderr)")
    }
}
