import Testing
@testable import GStreamer

@Suite("Initialisation and factories")
struct InitializationTests {
    init() throws { try Support.start() }

    @Test("initialising from many tasks at once is safe and idempotent")
    func concurrentInitialisation() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { try GStreamer.initialize() } }
            try await group.waitForAll()
        }
        #expect(GStreamer.version >= GStreamer.Version(major: 1, minor: 22, micro: 0, nano: 0))
        #expect(GStreamer.version.description.hasPrefix("1."))
    }

    @Test("a missing element names the Debian package to install")
    func missingElement() throws {
        #expect(throws: GStreamerError.missingElement("no-such-element-xyz", package: DebianPackage.providing(element: "no-such-element-xyz"))) {
            try ElementFactory.make("no-such-element-xyz")
        }
        #expect(DebianPackage.providing(element: "webrtcdsp") == "gstreamer1.0-plugins-bad")
        #expect(DebianPackage.providing(element: "pulsesink") == "gstreamer1.0-plugins-good")
        #expect(DebianPackage.providing(element: "avdec_h265") == "gstreamer1.0-libav")
        let message = GStreamerError.missingElement("webrtcdsp", package: "gstreamer1.0-plugins-bad").description
        #expect(message.contains("gstreamer1.0-plugins-bad"))
    }

    @Test("a description with a missing element fails with missingElement, not a half-built pipeline")
    func parseMissingElement() throws {
        do {
            _ = try Pipeline.parse("audiotestsrc ! no-such-element-abc ! fakesink")
            Issue.record("parse should have failed")
        } catch {
            guard case .missingElement(let name, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(name == "no-such-element-abc")
        }
    }

    @Test("a malformed description fails with the parser's message")
    func parseSyntaxError() throws {
        do {
            _ = try Pipeline.parse("audiotestsrc ! ! fakesink (")
            Issue.record("parse should have failed")
        } catch {
            guard case .parseFailed(_, let gerror) = error else { Issue.record("wrong error \(error)"); return }
            #expect(gerror.domain == "gst_parse_error")
            #expect(!gerror.message.isEmpty)
        }
    }

    @Test("factories report metadata and their properties")
    func factoryMetadata() throws {
        let factory = try ElementFactory.find("webrtcdsp")
        #expect(factory.factoryName == "webrtcdsp")
        #expect(factory.klass.contains("Audio"))
        #expect(factory.propertyNames.contains("echo-cancel"))
        #expect(ElementFactory.isAvailable("audiomixer"))
        #expect(!ElementFactory.isAvailable("no-such-element-xyz"))
    }
}
