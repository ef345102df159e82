import ClassroomAudio
import Synchronization
import Testing

@Suite("Event delivery")
struct EventDeliveryTests {
    @Test("every observer receives the same events in the same order")
    func sameOrderForAll() throws {
        let session = try makeSession()
        let first = EventRecorder(session)
        let second = EventRecorder(session)
        let token = try session.lease(.record, owner: "follow-reading")
        session.addDevice(Devices.builtInMic)
        try session.release(token)
        #expect(!first.events.isEmpty)
        #expect(first.events == second.events)
    }

    @Test("an observer that calls back into the session neither deadlocks nor reorders events")
    func reentrantObserver() throws {
        let session = try makeSession()
        let recorder = EventRecorder(session)
        let reacted = Mutex(false)
        let observation = session.observe { [weak session] event in
            guard let session, case .interruptionBegan = event else { return }
            let first = reacted.withLock { done in
                defer { done = true }
                return !done
            }
            if first { _ = try? session.duck(owner: "pause-handler") }
        }
        session.beginInterruption(.announcement)
        #expect(
            recorder.events == [
                .interruptionBegan(.announcement), .lessonPauseRequested(.interruption(.announcement)),
                .duckingChanged(DuckingState(factor: 0.1, ramp: .milliseconds(250))),
            ])
        observation.cancel()
    }

    @Test("cancelling or dropping an observation stops delivery")
    func cancellation() throws {
        let session = try makeSession()
        let count = Mutex(0)
        let cancelled = session.observe { _ in count.withLock { $0 += 1 } }
        var dropped: ObservationToken? = session.observe { _ in count.withLock { $0 += 100 } }
        _ = try session.duck(owner: "a")
        #expect(count.withLock { $0 } == 101)
        cancelled.cancel()
        cancelled.cancel()
        dropped = nil
        #expect(dropped == nil)
        session.beginInterruption(.announcement)
        #expect(count.withLock { $0 } == 101)
    }

    @Test("events from many threads arrive as unbroken chains")
    func manyThreads() async throws {
        let session = try makeSession()
        let recorder = EventRecorder(session)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        do {
                            let duck = try session.duck(owner: "task-\(task)")
                            let lease = try session.lease(round % 2 == 0 ? .record : .playback, owner: "task-\(task)")
                            try session.release(lease)
                            try session.releaseDuck(duck)
                        } catch {
                            Issue.record("task \(task) round \(round): \(error)")
                        }
                    }
                }
            }
        }
        var ducked = false
        var configuration = AudioConfiguration.initial
        for event in recorder.events {
            if case .duckingChanged(let ducking) = event {
                #expect(ducking.isDucked != ducked)
                ducked = ducking.isDucked
            }
            if case .configurationChanged(let old, let new, _) = event {
                #expect(old == configuration)
                configuration = new
            }
        }
        #expect(!ducked && configuration == .initial)
    }
}
