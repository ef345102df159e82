import ArgumentParser
import ClassroomMeasurement
import Foundation
import GStreamer
import Logging

/// Runs every measurement of DESIGN §7 and writes the report.
struct RunBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Runs every measurement and writes the report (the default).")

    @Flag(help: "Development run: a 60 s long run and fewer repetitions. The report says so.")
    var quick = false

    @Option(help: "Seconds of the long real-time run (RSS growth); default 600, or 60 with --quick.")
    var soakSeconds: Int?

    @Option(help: "Where BENCHMARKS.md and benchmarks.json go.")
    var output = "docs"

    @Option(help: "The repository root (pipelines/ is read from there).")
    var root = "."

    @Option(help: "Development: run only these rows (two-way: mouth-to-ear, the WebRTC room, jitter buffers on an impaired path and 32 peers; webrtc: the WebRTC room beside the plain-RTP one across network namespaces; impaired: those jitter buffers alone; echo-room: the canceller in the room rig; echo-tuning: webrtcdsp's knobs in the room; near-end: noise, quiet and loud talkers in the room; second-room: the canceller in a second room, five runs per row; busy: five minutes with every core busy on PulseAudio and on PipeWire, what the listener heard; devices: mouth-to-ear through PulseAudio and PipeWire beside the floor, its budget chart drawn in the temporary folder) and print them; docs/ is not written.")
    var only: String?

    @Option(help: "With --only: also write the rows, with this platform's name, to this JSON file (what --beside reads back).")
    var json: String?

    @Option(help: "A command that runs this bench on a second platform sharing this tree (e.g. 'scripts/debian13.sh run scripts/with-pulseaudio.sh .build-debian13/release/classroom-bench'): the room rows (echo-room, or --only's echo-room, echo-tuning, near-end or second-room) run there too, after the rows here, and the report shows both platforms in one table.")
    var beside: String?

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "classroom-bench")
        let started = Date()
        let startedAt = ProcessMeters.monotonicNanoseconds()
        guard FileManager.default.changeCurrentDirectoryPath(root) else { throw BenchError("no directory \(root)") }
        try GStreamer.initialize()
        guard PulseAudioControl.isAvailable else {
            throw BenchError("no PulseAudio server answers: run under scripts/with-pulseaudio.sh (make bench does)")
        }
        let plan = BenchmarkPlan(quick: quick, soakSeconds: soakSeconds ?? (quick ? 60 : 600))
        let executable = try Self.executablePath()
        let roomScript = RoomRig.script(root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        if let only {
            let rows: [BenchmarkRow]
            switch only {
            case "two-way": rows = await Self.twoWayRows(executable: executable, plan: plan, logger: logger)
            case "webrtc": rows = await WebRTCRoomRows.rows(executable: executable, bursts: plan.mouthToEarBursts)
            case "impaired": rows = await ImpairedPathRows.rows(logger: logger)
            case "echo-room": rows = await EchoRoomComparison.rows(delays: Self.roomDelays, script: roomScript, logger: logger)
            case "echo-tuning": rows = await EchoTuningSweep.rows(script: roomScript, logger: logger)
            case "near-end": rows = await RoomNearEndRows.rows(script: roomScript, logger: logger)
            case "second-room": rows = await SecondRoomRows.rows(script: roomScript, logger: logger)
            case "devices": rows = await DeviceMouthToEarRows.rows(chartDirectory: FileManager.default.temporaryDirectory.path)
            case "busy": rows = await BusyClassRows.rows(executable: executable, runs: plan.busyMinutes)
            default: throw BenchError("--only takes two-way, webrtc, impaired, echo-room, echo-tuning, near-end, second-room, devices or busy, not \(only)")
            }
            if let json {
                let report = PlatformComparison.Report(platform: PlatformComparison.hereName, rows: rows)
                try JSONEncoder().encode(report).write(to: URL(fileURLWithPath: json))
            }
            print(ReportWriter.table(rows))
            for row in rows { print("\n\(row.measure): \(row.method)") }
            if let beside, ["echo-room", "echo-tuning", "near-end", "second-room"].contains(only) {
                progress("the same rows on the other platform: \(beside)")
                let there = try await PlatformComparison.rowsThere(command: beside, only: only)
                let comparison = PlatformComparison(here: rows, there: there.rows, hereName: PlatformComparison.hereName, thereName: there.platform)
                print("\nOn \(there.platform):\n" + ReportWriter.table(there.rows))
                print("\n" + comparison.table())
            }
            return
        }
        progress("long run: \(plan.soakSeconds) s in a child process, with the mic cycles and sink retargets first")
        let soak = try SoakRun(executable: executable, plan: plan)

        progress("media level across mic-connect")
        let level = await MediaLevelMeasurement.rows(runs: plan.levelRuns, logger: logger)
        progress("switch latency through the session controller")
        let latency = await SwitchLatencyMeasurement.rows(runs: plan.latencyRuns, logger: logger)
        progress("A/V sync on a beep-and-flash lesson")
        let sync = await AVSyncMeasurement.rows(logger: logger)
        progress("ERLE: engine voice and raw profiles, PulseAudio module-echo-cancel")
        let echo = await EchoComparison.rows(delays: [10, 30, 50], pulseRuns: plan.pulseEchoRuns, logger: logger)
        progress("ERLE in the room rig at \(Self.roomDelays.map(String.init).joined(separator: ", ")) ms unreported latency, and PulseAudio's canceller there")
        let room = await EchoRoomComparison.rows(delays: Self.roomDelays, script: roomScript, logger: logger)
        var platforms: String?
        if let beside {
            progress("the room rows on the other platform: \(beside)")
            do {
                let there = try await PlatformComparison.rowsThere(command: beside, only: "echo-room")
                platforms = PlatformComparison(here: room, there: there.rows, hereName: PlatformComparison.hereName, thereName: there.platform).table()
                    + "\n\nThe rows as measured on \(there.platform), with their baselines:\n\n" + ReportWriter.table(there.rows)
            } catch {
                platforms = "Not measured on the other platform: \(error)"
            }
        }
        progress("waiting for the long run to finish its cycles before the CPU-heavy children")
        await soak.waitForCycles()
        progress("CPU per audio second, engine vs gst-launch-1.0")
        let cost = await ProcessingCost.rows(executable: executable, runs: plan.costRuns)
        progress("RTC inputs mixed on one core")
        let mixing = await RealTimeMixing.rows(executable: executable, inputs: [1, 8, 32], runs: plan.mixRuns)
        let twoWay = await Self.twoWayRows(executable: executable, plan: plan, logger: logger)
        progress("mouth-to-ear through PulseAudio and PipeWire, beside the floor")
        let devices = await DeviceMouthToEarRows.rows(chartDirectory: output)
        progress("startup to first audio out")
        let startup = await StartupMeasurement.rows(executable: executable, runs: plan.startupRuns)
        progress("waiting for the long run")
        let long = await soak.rows(voiceBaselineRSSKiB: cost.gstVoicePeakRSSKiB)
        // After the long run: the busy minutes load every core, which the long run must not share.
        progress("busy minutes: every core loaded, what the listener hears")
        let busy = await BusyClassRows.rows(executable: executable, runs: plan.busyMinutes)

        let rows = level + long.continuity + busy + latency + echo + room + sync + cost.rows + mixing + twoWay + devices + startup + long.memory
        let wall = Double(ProcessMeters.monotonicNanoseconds() - startedAt) / 1e9
        let info = ReportWriter.RunInfo(started: started, wallSeconds: wall, quick: quick, soakSeconds: plan.soakSeconds,
                                        machine: Self.machine(), gstreamer: GStreamer.version.description)
        try ReportWriter(directory: URL(fileURLWithPath: output)).write(rows: rows, info: info, platforms: platforms)
        print(ReportWriter.table(rows))
        print("\nwrote \(output)/BENCHMARKS.md and \(output)/benchmarks.json in \(Int(wall)) s")
    }

    /// Unreported device latencies the room runs at (issue #11).
    static let roomDelays = [0, 60, 150, 300]

    /// The two-way classroom: mouth-to-ear latency kiosk → kiosk over RTP, and 32 RTP peers in real time.
    private static func twoWayRows(executable: String, plan: BenchmarkPlan, logger: Logger) async -> [BenchmarkRow] {
        FileHandle.standardError.write(Data("classroom-bench: mouth-to-ear latency, kiosk to kiosk over RTP\n".utf8))
        let mouthToEar = await MouthToEarMeasurement.rows(runs: plan.mouthToEarBursts, logger: logger)
        FileHandle.standardError.write(Data("classroom-bench: 32 RTP peers in real time\n".utf8))
        FileHandle.standardError.write(Data("classroom-bench: jitter buffers on an impaired path\n".utf8))
        let impaired = await ImpairedPathRows.rows(logger: logger)
        FileHandle.standardError.write(Data("classroom-bench: the WebRTC room beside the plain-RTP one, across network namespaces\n".utf8))
        let webRTC = await WebRTCRoomRows.rows(executable: executable, bursts: plan.mouthToEarBursts)
        return mouthToEar + webRTC + impaired + (await RealTimePeers.rows(executable: executable, peers: 32, runs: plan.mixRuns))
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("classroom-bench: \(text)\n".utf8))
    }

    /// This executable, for starting workers.
    static func executablePath() throws -> String {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return path
    }

    /// "N cores, <CPU model>, Linux <release>".
    static func machine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?
            .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let release = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(model)), Linux \(release)"
    }
}

/// How many times each measure runs.
struct BenchmarkPlan: Sendable {
    let quick: Bool
    let soakSeconds: Int
    var levelRuns: Int { quick ? 2 : 5 }
    var latencyRuns: Int { quick ? 10 : 20 }
    var costRuns: Int { quick ? 1 : 3 }
    var mixRuns: Int { quick ? 1 : 3 }
    var startupRuns: Int { quick ? 3 : 5 }
    var pulseEchoRuns: Int { quick ? 1 : 3 }
    var mouthToEarBursts: Int { quick ? 5 : 10 }
    var busyMinutes: Int { quick ? 1 : BusyClassRows.runs }
    let cycles = 100
    let retargets = 20
}
