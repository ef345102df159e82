import ArgumentParser
import ClassroomMeasurement
import Foundation
import GStreamer

/// One busy class on the sound server the process is pointed at (`BusyClass`), every core loaded;
/// prints it as one JSON line.
struct BusyClassWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "busy", abstract: "A class with every core busy: what the speaker's monitor heard.")

    @Option(help: "Seconds of class under load.")
    var seconds = 60

    func run() async throws {
        try GStreamer.initialize()
        let busy = try await BusyClass.measure(seconds: seconds, logger: WorkerSetup.logger("busy"))
        print(String(decoding: try JSONEncoder().encode(busy), as: UTF8.self))
    }
}
