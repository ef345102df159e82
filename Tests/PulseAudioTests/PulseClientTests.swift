import ClassroomMeasurement
import Foundation
import PulseAudio
import Testing

/// The client against the private PulseAudio server of scripts/with-pulseaudio.sh: a tagged stream
/// that pacat plays, moved by the client, and where the server says it went.
@Suite("PulseClient on a real PulseAudio server", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1", "needs scripts/with-pulseaudio.sh's server"))
struct PulseClientTests {
    private static let key = "classroom-audio.output-id"
    private let client = PulseClient(name: "classroom-audio-tests")

    @Test("moves the playback stream that carries the tag to the named sink, and to the server's default sink with nil")
    func movesTaggedStream() async throws {
        let tag = "tests-\(UInt32.random(in: 0...UInt32.max))"
        let other = "other_\(tag)"
        let module = try PulseAudioControl.loadNullSink(other)
        defer { PulseAudioControl.unload(module) }
        let player = try Self.play(tag: tag, on: "speaker")
        defer { Self.stop(player) }
        try await Self.waitFor("the tagged stream") { Self.sink(playing: tag) == "speaker" }

        try client.movePlaybackStream(where: Self.key, is: tag, to: other, within: .seconds(2))
        #expect(Self.sink(playing: tag) == other)
        try client.movePlaybackStream(where: Self.key, is: tag, to: nil, within: .seconds(2))
        #expect(Self.sink(playing: tag) == (try PulseAudioControl.pactl("get-default-sink")))
    }

    @Test("a tag no stream carries is streamNotFound; a sink that does not exist is refused with the server's reason")
    func saysWhatWentWrong() async throws {
        let tag = "tests-\(UInt32.random(in: 0...UInt32.max))"
        #expect(throws: PulseAudioError.streamNotFound(key: Self.key, value: tag)) {
            try client.movePlaybackStream(where: Self.key, is: tag, to: "speaker", within: .seconds(2))
        }
        let player = try Self.play(tag: tag, on: "speaker")
        defer { Self.stop(player) }
        try await Self.waitFor("the tagged stream") { Self.sink(playing: tag) == "speaker" }
        do {
            try client.movePlaybackStream(where: Self.key, is: tag, to: "no_such_sink", within: .seconds(2))
            Issue.record("a move to a sink that does not exist succeeded")
        } catch {
            guard case .refused(let reason) = error else { Issue.record("expected refused, got \(error)"); return }
            #expect(reason.contains("no_such_sink"), "\(reason)")
        }
        #expect(Self.sink(playing: tag) == "speaker")
    }

    // MARK: Helpers

    /// pacat playing silence on `sink`, its stream tagged with `tag`.
    static func play(tag: String, on sink: String) throws -> Process {
        let player = Process()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/pacat")
        player.arguments = ["--raw", "--device=\(sink)", "--property=\(key)=\(tag)", "/dev/zero"]
        try player.run()
        return player
    }

    /// SIGKILL: a child of a test's thread may have SIGTERM blocked.
    static func stop(_ player: Process) {
        kill(player.processIdentifier, SIGKILL)
        player.waitUntilExit()
    }

    /// The name of the sink the stream tagged `tag` plays on, from pactl; nil when there is none.
    static func sink(playing tag: String) -> String? {
        guard let inputs = try? PulseAudioControl.pactl("list", "sink-inputs"), let sinks = try? PulseAudioControl.pactl("list", "short", "sinks") else { return nil }
        for block in inputs.components(separatedBy: "Sink Input #") where block.contains("\(key) = \"\(tag)\"") {
            guard let line = block.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Sink:") }),
                  let index = line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) else { return nil }
            return sinks.split(separator: "\n").map { $0.split(separator: "\t") }.first { $0.first.map(String.init) == index }.map { String($0[1]) }
        }
        return nil
    }

    /// Polls `condition` every 20 ms for up to 3 s.
    static func waitFor(_ what: String, _ condition: () -> Bool) async throws {
        guard await Poll.until(within: .seconds(3), condition) else { throw PulseClientTestFailure("timed out waiting for \(what)") }
    }
}

/// A test's own failure, with what it waited for.
struct PulseClientTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
