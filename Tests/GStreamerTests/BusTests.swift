import Foundation
import Synchronization
import Testing
@testable import GStreamer

@Suite("Bus messages")
struct BusTests {
    init() throws { try Support.start() }

    @Test("an error carries its GError, debug text and the failing element's path")
    func errorMessage() throws {
        let pipeline = try Pipeline.parse("filesrc name=lesson-src location=/nonexistent/lesson.webm ! fakesink", name: "broken")
        let message = pipeline.bus.waitForMessage(timeout: .seconds(5), after: { _ = try? pipeline.setState(.paused) }) {
            if case .error = $0.view { return true }
            return false
        }
        try pipeline.setState(.null)
        let error = try #require(message)
        guard case .error(let gerror, let debug) = error.view else { Issue.record("not an error"); return }
        #expect(gerror.isResourceError)
        #expect(gerror.message.contains("not found") || gerror.message.contains("No such file"))
        #expect(debug?.contains("/nonexistent/lesson.webm") == true)
        #expect(error.source == "lesson-src")
        #expect(error.sourcePath?.contains("broken") == true)
    }

    @Test("every subscriber sees every message, in order, and EOS ends the run")
    func fanOut() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=5 ! fakesink", name: "fan")
        let first = Mutex<[String]>([]), second = Mutex<[String]>([])
        let a = pipeline.bus.subscribe { message in first.withLock { $0.append(message.typeName) } }
        let b = pipeline.bus.subscribe { message in second.withLock { $0.append(message.typeName) } }
        let messages = try Support.runToEnd(pipeline)
        // runToEnd saw the EOS, so both subscribers (registered earlier, same thread) have too.
        a.cancel(); b.cancel()
        #expect(first.withLock { $0 } == second.withLock { $0 })
        #expect(first.withLock { $0 }.contains("eos"))
        #expect(messages.contains { if case .endOfStream = $0.view { return true }; return false })
        let pipelineStates = messages.compactMap { message -> State? in
            guard message.isFrom(pipeline), case .stateChanged(_, let new, _) = message.view else { return nil }
            return new
        }
        #expect(Array(pipelineStates.prefix(3)) == [.ready, .paused, .playing])
    }

    @Test("element messages keep their structure: level's rms is readable")
    func elementStructure() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=10 ! level name=meter post-messages=true interval=20000000 ! fakesink")
        let messages = try Support.runToEnd(pipeline)
        let levels = messages.compactMap { message -> Structure? in
            guard case .element(let structure) = message.view, structure.name == "level" else { return nil }
            return structure
        }
        #expect(!levels.isEmpty)
        let first = try #require(levels.first)
        #expect(first.doubles("rms")?.count == 1)
        #expect(first.clockTime("running-time") != nil)
        #expect(first.fieldNames.contains("peak"))
    }

    @Test("application messages and async streams deliver too")
    func asyncStream() async throws {
        let pipeline = try Pipeline(name: "app")
        let bus = pipeline.bus
        let stream = bus.messages()
        let structure = try Structure("classroom-test, answer=(int)42")
        bus.post(application: structure)
        for await message in stream {
            if case .application(let received) = message.view {
                #expect(received.name == "classroom-test")
                #expect(received.int("answer") == 42)
                break
            }
        }
    }

    @Test("the reader thread stops when the last subscriber goes and restarts for a new one")
    func readerLifecycle() throws {
        let pipeline = try Pipeline.parse("audiotestsrc num-buffers=3 ! fakesink")
        for _ in 0..<3 {
            let seen = Counter()
            let subscription = pipeline.bus.subscribe { _ in seen.increment() }
            try Support.runToEnd(pipeline)
            #expect(seen.count > 0)
            subscription.cancel()
        }
    }
}
