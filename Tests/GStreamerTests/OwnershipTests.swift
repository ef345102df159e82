import Testing
@testable import GStreamer

@Suite("Reference ownership")
struct OwnershipTests {
    init() throws { try Support.start() }

    @Test("a new element is owned once, its floating reference sunk")
    func floatingSunk() throws {
        let element = try ElementFactory.make("volume")
        #expect(element.referenceCount == 1)
    }

    @Test("a bin takes its own reference; lookups add one and give it back")
    func binReferences() throws {
        let bin = try Bin(name: "holder")
        let element = try ElementFactory.make("volume", name: "v")
        try bin.add(element)
        #expect(element.referenceCount == 2)
        do {
            let found = try #require(bin.element(named: "v"))
            #expect(found.referenceCount == 3)
            let pads = found.pads
            #expect(pads.count == 2)
        }
        #expect(element.referenceCount == 2)
        try bin.remove(element)
        #expect(element.referenceCount == 1)
    }

    @Test("pads and buses are released by their wrappers")
    func otherObjects() throws {
        let element = try ElementFactory.make("volume")
        let held = try element.staticPad("sink")
        let base = held.referenceCount
        do {
            let again = try element.staticPad("sink")
            #expect(again.peer == nil)
            #expect(held.referenceCount == base + 1)
        }
        #expect(held.referenceCount == base)

        let pipeline = try Pipeline()
        let bus = pipeline.bus
        let busBase = bus.referenceCount
        do {
            let another = pipeline.bus
            #expect(another.referenceCount == busBase + 1)
        }
        #expect(bus.referenceCount == busBase)
    }

    @Test("a probe token removes its probe and releases its closure")
    func probeTokenReleases() throws {
        final class Marker: Sendable {}
        weak var weakMarker: Marker?
        let element = try ElementFactory.make("volume")
        let pad = try element.staticPad("src")
        do {
            let marker = Marker()
            weakMarker = marker
            let probe = pad.addProbe(.buffer) { _ in _ = marker; return .ok }
            #expect(probe?.isActive == true)
            #expect(weakMarker != nil)
        }
        #expect(weakMarker == nil)
    }

    @Test("a signal token disconnects and releases its closure")
    func signalTokenReleases() throws {
        final class Marker: Sendable {}
        weak var weakMarker: Marker?
        let decode = try ElementFactory.make("decodebin")
        do {
            let marker = Marker()
            weakMarker = marker
            let handler = decode.onPadAdded { _ in _ = marker }
            #expect(handler.isConnected)
        }
        #expect(weakMarker == nil)
    }
}
