import Foundation
import Testing
@testable import GStreamer

/// These need a PulseAudio server with null sinks; `make test` starts one (scripts/with-pulseaudio.sh)
/// and sets CLASSROOM_AUDIO_PULSE=1. Without it they are skipped, visibly.
/// Serialized: device providers are process-wide singletons, and a second monitor starting or
/// stopping beside the first was seen to cut the first one off from hotplug messages.
@Suite("Devices on a real PulseAudio server", .serialized, .enabled(if: ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_PULSE"] == "1"))
struct DeviceMonitorTests {
    init() throws { try Support.start() }

    private func pactl(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { throw TestFailure("pactl \(arguments.joined(separator: " ")) failed") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the speaker sink is listed with its proplist and makes a pulsesink")
    func listsSpeaker() throws {
        let monitor = try DeviceMonitor.audio()
        try monitor.start()
        defer { monitor.stop() }
        let sinks = monitor.devices.filter(\.isAudioSink)
        let speaker = try #require(sinks.first { $0.displayName == "Speaker" })
        if ProcessInfo.processInfo.environment["CLASSROOM_AUDIO_SERVER"] == "pipewire" {
            // pipewire-pulse names the node's factory instead of PulseAudio's device.class.
            #expect(speaker.properties?.string("factory.name") == "support.null-audio-sink", "\(speaker.properties?.description ?? "")")
        } else {
            #expect(speaker.properties?.string("device.class") == "abstract")   // a null sink
        }
        let element = try speaker.createElement(name: "output-sink")
        #expect(element.factoryName == "pulsesink")
        #expect(try element.string("device") == "speaker")
    }

    @Test("plugging a headset posts device-added with its form factor; unplugging posts device-removed")
    func hotplug() throws {
        let monitor = try DeviceMonitor.audio()
        let bus = monitor.bus
        try monitor.start()
        defer { monitor.stop() }
        let sinkName = "test_headset_\(UInt32.random(in: 0...UInt32.max))"
        var module = ""
        let added = try bus.waitForMessage(timeout: .seconds(5), after: {
            module = try pactl("load-module", "module-null-sink", "sink_name=\(sinkName)",
                               "sink_properties=\"device.description='Test Headset' device.form_factor=headset device.bus=usb\"")
        }) { message in
            if case .deviceAdded(let device) = message.view { return device.properties?.string("device.form_factor") == "headset" && device.isAudioSink }
            return false
        }
        let device: Device?
        if case .deviceAdded(let found)? = added?.view { device = found } else { device = nil }
        #expect(device?.properties?.string("device.bus") == "usb")
        #expect(device?.displayName == "Test Headset")

        // Reconfigure an existing pulsesink onto the headset: only its `device` changes.
        let sink = try ElementFactory.make("pulsesink", properties: ["device": "speaker"])
        if let device { try device.reconfigure(sink) }
        #expect(try sink.string("device") == sinkName)

        let removed = try bus.waitForMessage(timeout: .seconds(5), after: { _ = try pactl("unload-module", module) }) { message in
            if case .deviceRemoved(let gone) = message.view { return gone.displayName == "Test Headset" }
            return false
        }
        #expect(removed != nil)
    }
}
