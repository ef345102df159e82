import Testing
@testable import GStreamer

@Suite("Typed properties")
struct PropertyTests {
    init() throws { try Support.start() }

    @Test("bool, int, double, string and enum-by-nick values round-trip")
    func roundTrip() throws {
        let source = try ElementFactory.make("audiotestsrc", name: "tone")
        try source.set("freq", 997.0)
        try source.set("num-buffers", 25)
        try source.set("is-live", true)
        try source.set("wave", "pink-noise")
        #expect(try source.double("freq") == 997.0)
        #expect(try source.int("num-buffers") == 25)
        #expect(try source.bool("is-live"))
        #expect(try source.enumNick("wave") == "pink-noise")
        #expect(try source.string("name") == "tone")

        let dsp = try ElementFactory.make("webrtcdsp")
        try dsp.set("gain-control-mode", .enumNick("fixed-digital"))
        #expect(try dsp.enumNick("gain-control-mode") == "fixed-digital")
        try dsp.set("probe", "echo-probe")
        #expect(try dsp.string("probe") == "echo-probe")
    }

    @Test("caps and object properties round-trip")
    func capsAndObjects() throws {
        let filter = try ElementFactory.make("capsfilter")
        let caps = try Caps("audio/x-raw,format=S16LE,rate=48000,channels=1")
        try filter.set("caps", caps)
        #expect(try filter.caps("caps")?.isEqual(to: caps) == true)

        let playbin = try ElementFactory.make("playbin")
        let sink = try ElementFactory.make("fakesink", name: "quiet")
        try playbin.set("audio-sink", .object(sink))
        let readBack = try playbin.object("audio-sink")
        #expect(readBack?.isSame(as: sink) == true)
        // A clock is a GstObject but not an element.
        #expect(throws: GStreamerError.self) { try playbin.set("audio-sink", .object(try Clock.system())) }
    }

    @Test("wrong names, types, ranges and enum nicks are typed errors")
    func errors() throws {
        let volume = try ElementFactory.make("volume", name: "gain")
        #expect(throws: GStreamerError.noSuchProperty(object: "gain", property: "loudness")) { try volume.set("loudness", 1.0) }
        #expect(throws: GStreamerError.self) { try volume.set("volume", 11.0) }   // range 0…10
        #expect(throws: GStreamerError.self) { try volume.set("mute", 1.5) }      // wrong type
        let source = try ElementFactory.make("audiotestsrc")
        do {
            try source.set("wave", "no-such-wave")
            Issue.record("an unknown nick must fail")
        } catch {
            #expect(error.description.contains("sine"))   // lists the valid nicks
        }
        #expect(try volume.double("volume") == 1.0)        // nothing was changed by the failures
    }

    @Test("construct-only properties go through the factory and are refused afterwards")
    func constructOnly() throws {
        let mixer = try ElementFactory.make("audiomixer", name: "rtc-mixer", properties: ["force-live": true, "latency": .int(10_000_000)])
        #expect(try mixer.bool("force-live"))
        #expect(try mixer.uint64("latency") == 10_000_000)
        #expect(mixer.name == "rtc-mixer")
        #expect(throws: GStreamerError.constructOnlyProperty(object: "rtc-mixer", property: "force-live")) {
            try mixer.set("force-live", false)
        }
        var properties: ElementProperties = [:]
        properties.append("force-live", true)
        let built = try ElementFactory.make("audiomixer", name: "built", properties: properties)
        #expect(try built.bool("force-live"))
        #expect(throws: GStreamerError.self) { try ElementFactory.make("audiomixer", properties: ["no-such": 1]) }
    }
}
