import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("classroom-player as a Linux citizen: Prometheus metrics", .serialized)
struct CitizenMetricsTests {
    @Test("--metrics serves an exposition promtool accepts, and a real Prometheus scraping it answers a query for the 1025 an RTP peer that stopped raised")
    func prometheusScrapesAnAlarm() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 40, volume: 0)
        let rtpPort = try Fixtures.freeUDPPort()
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--live", "teacher=rtp://127.0.0.1:\(rtpPort)", "--output", "wav:\(folder.appendingPathComponent("mix.wav").path)",
                                        "--events", events.path, "--metrics", "127.0.0.1:0", "--no-stdin"], in: folder)
        defer { player.signal(SIGKILL) }
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "started").isEmpty }, "the player did not start; stderr: \(player.stderr)")
        guard let port = Fixtures.events(events, named: "metrics-listening").first?["port"] as? Int else {
            Issue.record("no metrics-listening event with the port: \(Fixtures.events(events))")
            return
        }
        let metrics = try #require(URL(string: "http://127.0.0.1:\(port)/metrics"))

        // 1 s of Opus from the teacher, then nothing: the peer stops and 1025 is raised.
        try Fixtures.gstLaunch("audiotestsrc is-live=true num-buffers=50 samplesperbuffer=960 wave=sine freq=1000 volume=0.2 "
                               + "! audio/x-raw,rate=48000,channels=1 ! opusenc ! rtpopuspay pt=96 ! udpsink host=127.0.0.1 port=\(rtpPort)")
        #expect(await waitUntil(timeout: .seconds(10)) { Fixtures.events(events, named: "alarm").contains { $0["number"] as? Int == 1025 } },
                "the stopped peer raised no 1025: \(Fixtures.events(events, named: "alarm"))")

        let (body, response) = try await URLSession.shared.data(from: metrics)
        let exposition = String(decoding: body, as: UTF8.self)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(exposition.contains("classroom_alarms_total{code=\"1025\"} 1"), "the exposition should count the 1025:\n\(exposition)")
        #expect(exposition.contains("classroom_peer_receiving{peer=\"teacher\"} 0"), "the teacher should be listed as not receiving:\n\(exposition)")
        #expect(exposition.contains("classroom_output_level_dbfs "), "the output level should be exported:\n\(exposition)")
        // The microphone is off: its level is unknown and left out, not a made-up 0.
        #expect(!exposition.contains("classroom_microphone_level_dbfs "), "an unknown level should be absent:\n\(exposition)")
        #expect(exposition.contains("classroom_microphone_connected 0"))
        let lint = try Self.run("/usr/bin/promtool", ["check", "metrics"], input: exposition)
        #expect(lint.status == 0, "promtool check metrics refused the exposition (exit \(lint.status)): \(lint.output)")

        // A real Prometheus, on loopback, scraping every second.
        let prometheusPort = try Self.freeTCPPort()
        let config = folder.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: classroom-player
            static_configs:
              - targets: ["127.0.0.1:\(port)"]
        """.write(to: config, atomically: true, encoding: .utf8)
        let prometheus = try Fixtures.start("/usr/bin/prometheus", ["--config.file=\(config.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("tsdb").path)",
                                                                   "--web.listen-address=127.0.0.1:\(prometheusPort)"])
        defer { prometheus.terminate(); prometheus.waitUntilExit() }
        let query = try #require(URL(string: "http://127.0.0.1:\(prometheusPort)/api/v1/query?query=classroom_alarms_total%7Bcode%3D%221025%22%7D"))
        var answer = ""
        let answered = await waitUntil(timeout: .seconds(30)) {
            let semaphore = DispatchSemaphore(value: 0)
            let box = AnswerBox()
            URLSession.shared.dataTask(with: query) { data, _, _ in box.text = data.map { String(decoding: $0, as: UTF8.self) } ?? ""; semaphore.signal() }.resume()
            semaphore.wait()
            answer = box.text
            return answer.contains("\"job\":\"classroom-player\"") && answer.contains(",\"1\"]")
        }
        print("FIGURE Prometheus answered for classroom_alarms_total{code=\"1025\"}: \(answer)")
        #expect(answered, "Prometheus did not answer classroom_alarms_total{code=\"1025\"} = 1 within 30 s; its last answer: \(answer)")

        player.signal(SIGTERM)
        #expect(try await player.exitStatus(within: .seconds(15)) == 143, "stderr: \(player.stderr)")
    }

    @Test("--metrics with an address that is not HOST:PORT is refused before anything plays, saying what to give")
    func badAddress() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("tone.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 1)
        let result = try await PlayerProcess.run(["play", lesson.path, "--output", "null", "--metrics", "9464", "--no-stdin"], in: folder)
        #expect(result.status == 64, "exit \(result.status); stderr: \(result.stderr)")
        #expect(result.stderr.contains("HOST:PORT"), "stderr: \(result.stderr)")
    }

    /// A TCP port nobody listens on now on 127.0.0.1.
    static func freeTCPPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        guard let port = Fixtures.bindLoopback(descriptor, port: 0) else { throw PlayerTestError.setupFailed("no free TCP port") }
        return port
    }

    /// Runs a program with `input` on its standard input; returns its exit status and what it printed.
    static func run(_ executable: String, _ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, printed)
    }
}

/// What a URLSession callback hands back to the waiting test.
private final class AnswerBox: @unchecked Sendable {
    // Written by the callback before the semaphore is signalled, read after it.
    var text = ""
}
