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
        let prometheusPort = try Fixtures.freeTCPPort()
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
        defer { Fixtures.stop(prometheus) }
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

    @Test("the metrics server answers 16 scrapes at once and 503 to more; out of file descriptors it waits, says so, and answers again")
    func overload() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 40, volume: 0)
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--output", "null", "--mic", "none", "--events", events.path, "--metrics", "127.0.0.1:0", "--no-stdin"], in: folder)
        defer { player.signal(SIGKILL) }
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "metrics-listening").isEmpty }, "stderr: \(player.stderr)")
        let port = try #require(Fixtures.events(events, named: "metrics-listening").first?["port"] as? Int)

        // 16 clients that connect and say nothing hold every scrape thread (for 5 s each).
        var idle = (0..<16).compactMap { _ in Self.connect(port) }
        defer { idle.forEach { close($0) } }
        try await Task.sleep(for: .milliseconds(300))
        let refused = Self.scrape(port)
        idle.forEach { close($0) }
        idle.removeAll()
        let answered = await waitUntil(timeout: .seconds(5)) { Self.scrape(port).hasPrefix("HTTP/1.0 200") }
        print("FIGURE metrics: the 17th scrape → \(refused.prefix { $0 != "\r" }); answered again: \(answered)")
        #expect(refused.hasPrefix("HTTP/1.0 503"), "\(refused)")
        #expect(answered)

        // Now a descriptor limit a few above what the player holds: idle clients exhaust it. Counted once
        // the count holds still: a 200 needs only one of the 16 scrape threads gone, and the others
        // closing after the count left room for all 12 clients (1 run in 6 said nothing).
        let open = try #require(await Self.settledDescriptorCount(of: player.process.processIdentifier))
        let limiter = try PlayerProcess(["--pid", "\(player.process.processIdentifier)", "--nofile=\(open + 6)"], in: folder,
                                        executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
        #expect(try await limiter.exitStatus(within: .seconds(10)) == 0, "prlimit: \(limiter.stderr)")
        idle = (0..<12).compactMap { _ in Self.connect(port) }
        #expect(await waitUntil(timeout: .seconds(5)) { !Fixtures.events(events, named: "metrics-server").isEmpty }, "no trouble said: \(Fixtures.events(events))")
        idle.forEach { close($0) }
        idle.removeAll()
        let back = await waitUntil(timeout: .seconds(10)) { Self.scrape(port).hasPrefix("HTTP/1.0 200") }
        let said = Fixtures.events(events, named: "metrics-server").compactMap { $0["message"] as? String }
        print("FIGURE metrics out of descriptors (limit \(open + 6)): \(said); answered again: \(back)")
        #expect(back)
        #expect(said.first?.contains("cannot accept connections") == true && said.contains { $0.contains("accepts connections again") }, "\(said)")
    }

    @Test("16 connections sending a byte every 4 s hold the scrape slots at most 5 s from accept: a scrape is answered again while they still trickle")
    func slowlorisIsBounded() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 40, volume: 0)
        let events = folder.appendingPathComponent("events.jsonl")
        let player = try PlayerProcess(["play", lesson.path, "--output", "null", "--mic", "none", "--events", events.path, "--metrics", "127.0.0.1:0",
                                        "--no-stdin", "--no-mpris"], in: folder)
        defer { player.signal(SIGKILL) }
        #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "metrics-listening").isEmpty }, "stderr: \(player.stderr)")
        let port = try #require(Fixtures.events(events, named: "metrics-listening").first?["port"] as? Int)

        // Each slow client sends its request head a byte every 4 s: before each per-read wait of 5 s ends.
        let slow = (0..<16).compactMap { _ in Self.connect(port) }
        #expect(slow.count == 16)
        let stop = DispatchSemaphore(value: 0), stopped = DispatchSemaphore(value: 0)
        let trickle = Thread {
            defer { stopped.signal() }
            for byte in Array("GET /metrics HTTP/1.0\r\nX-Slow: yes\r\n".utf8) {
                for client in slow { var one = byte; _ = send(client, &one, 1, Int32(MSG_NOSIGNAL)) }
                if stop.wait(timeout: .now() + 4) == .success { return }   // the attacker's pace
            }
        }
        trickle.start()
        defer { stop.signal(); stopped.wait(); slow.forEach { close($0) } }
        #expect(await waitUntil(timeout: .seconds(2)) { Self.scrape(port).hasPrefix("HTTP/1.0 503") }, "the slow clients did not take the scrape slots")
        let started = ContinuousClock.now
        let answered = await waitUntil(timeout: .seconds(9)) { Self.scrape(port).hasPrefix("HTTP/1.0 200") }
        print("FIGURE metrics under 16 slow clients: answered again \(answered) after \(ContinuousClock.now - started)")
        #expect(answered, "every scrape refused while 16 clients trickled their heads")
    }

    @Test("--metrics :PORT says it listens on every interface (help and a warning event); 127.0.0.1:PORT does not")
    func everyInterfaceIsSaid() async throws {
        let folder = try Fixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let help = try await PlayerProcess.run(["play", "--help"], in: folder)
        #expect(help.stdout.contains("every interface"), "\(help.stdout)")
        let lesson = folder.appendingPathComponent("silence.wav")
        try Fixtures.toneLesson(at: lesson, seconds: 40, volume: 0)
        for (address, warns) in [(":0", true), ("127.0.0.1:0", false)] {
            let events = folder.appendingPathComponent("events-\(warns).jsonl")
            // In a network namespace of its own: "every interface" is only its loopback, which is down.
            let player = try PlayerProcess(["-n", PlayerProcess.executable.path, "play", lesson.path, "--output", "null", "--mic", "none",
                                            "--events", events.path, "--metrics", address, "--no-stdin", "--no-mpris"], in: folder,
                                           executable: URL(fileURLWithPath: "/usr/bin/unshare"))
            defer { player.signal(SIGKILL) }
            #expect(await waitUntil(timeout: .seconds(15)) { !Fixtures.events(events, named: "metrics-listening").isEmpty }, "stderr: \(player.stderr)")
            let said = Fixtures.events(events, named: "metrics-server").compactMap { $0["message"] as? String }
            #expect(said.contains { $0.contains("every interface") } == warns, "\(address): \(said)")
        }
    }

    /// How many descriptors `pid` holds once the number has stayed the same for 300 ms (read every
    /// 50 ms, for at most 5 s); nil if it never settles.
    static func settledDescriptorCount(of pid: Int32) async -> Int? {
        var last = -1, same = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            guard let count = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count else { return nil }
            same = count == last ? same + 1 : 0
            last = count
            if same >= 6 { return count }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// A TCP connection to 127.0.0.1:`port` that sends nothing; nil when refused.
    static func connect(_ port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); return nil }
        return descriptor
    }

    /// `GET /metrics` on a connection of its own; what came back, up to 1 s of waiting ("" when nothing).
    static func scrape(_ port: Int) -> String {
        guard let descriptor = connect(port) else { return "" }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /metrics HTTP/1.0\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return "" }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
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
