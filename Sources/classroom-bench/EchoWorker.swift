import ArgumentParser
import ClassroomEngine
import ClassroomMeasurement
import GStreamer
import Logging

/// One engine ERLE measurement at one echo delay, for looking into a figure by hand.
struct EchoWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "erle", abstract: "Engine ERLE at one echo-path delay (prints dB).")

    @Option(help: "voice or raw")
    var profile = "voice"

    @Option(help: "Echo-path delay in ms.")
    var delay = 50

    @Flag(help: "Through PulseAudio's module-echo-cancel instead of the engine (needs a server).")
    var pulse = false

    func run() async throws {
        let logger = WorkerSetup.logger("erle")
        try GStreamer.initialize()
        if pulse {
            let canceller = try PulseEchoCanceller()
            defer { canceller.unload() }
            let erle = try await canceller.erle(farEnd: try PulseEchoCanceller.decode(try SpeechSample.farEnd()), echoDelay: .milliseconds(delay))
            print(#"{"erle":\#(erle)}"#)
            return
        }
        let erle = try await EchoPathMeasurement.erle(processing: profile == "raw" ? .off : .voice, echoDelay: .milliseconds(delay),
                                                      settle: .seconds(2), logger: logger)
        print(#"{"erle":\#(erle)}"#)
    }
}
