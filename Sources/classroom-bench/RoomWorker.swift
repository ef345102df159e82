import ArgumentParser
import ClassroomEngine
import Foundation
import GStreamer

/// Two kiosks in one Janus room (`--room` as the player takes it): mouth-to-ear A → room → B and
/// the join times, as JSON. Started inside a network namespace for WebRTC (libnice skips loopback).
struct RoomWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "room", abstract: "Mouth-to-ear and join times through a Janus room.")

    @Option(help: "The room, as --room takes it.")
    var uri: String

    @Option(help: "Bursts to time.")
    var bursts: Int = 10

    func run() async throws {
        try GStreamer.initialize()
        let result = try await MouthToEarMeasurement.measure(.room(uri: uri), runs: bursts, logger: WorkerSetup.logger("room"))
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }
}
