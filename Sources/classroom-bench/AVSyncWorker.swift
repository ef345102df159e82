import ArgumentParser
import Foundation
import GStreamer
import Logging

/// The A/V sync measurement alone, for looking into a figure by hand.
struct AVSyncWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "avsync", abstract: "A/V sync on a beep-and-flash lesson (prints the row).")

    func run() async throws {
        let logger = WorkerSetup.logger("avsync")
        try GStreamer.initialize()
        for row in await AVSyncMeasurement.rows(logger: logger) { print(row.formattedValue, row.method) }
    }
}
