import ClassroomAudio
import Testing

/// Bad requests to the session, one row each: the request → the typed error (or the defined
/// no-op) → proof the session is unchanged and still works (a voice call resolves and goes away
/// again, with its events).
@Suite("Reliability: bad session requests")
struct SessionReliabilityTests {
    /// A bad request against `session`; returns what it saw, for the log.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let act: @Sendable (AudioSession) throws -> String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "every illegal category/mode/option combination through setCategory") { session in
            var refused = 0
            for category in Category.allCases {
                for mode in Mode.allCases {
                    for bits in 0..<UInt32(256) {
                        let options = CategoryOptions(rawValue: bits)
                        guard (try? AudioConfiguration(category: category, mode: mode, options: options)) == nil else { continue }
                        let before = session.state
                        do {
                            _ = try session.setCategory(category, mode: mode, options: options, owner: "misbehaving-module")
                            Issue.record("\(category)/\(mode) [\(options)] was accepted")
                        } catch {
                            switch error as? AudioSessionError {
                            case .incompatibleCategory?, .badParam?: refused += 1
                            default: Issue.record("\(category)/\(mode) [\(options)]: \(error)")
                            }
                        }
                        #expect(session.state == before)
                    }
                }
            }
            #expect(refused > 1_000)
            return "\(refused) combinations refused with incompatibleCategory or badParam, state untouched"
        },
        Row(name: "releasing a lease twice") { session in
            let token = try session.lease(.record, owner: "follow-reading")
            try session.release(token)
            let before = session.state
            try session.release(token)   // defined as harmless: release order and repetition never matter
            #expect(session.state == before)
            return "second release is a no-op"
        },
        Row(name: "releasing a lease of another session") { session in
            let other = try makeSession()
            let foreign = try other.lease(.voiceCall, owner: "rtc")
            let before = session.state
            do {
                try session.release(foreign)
                Issue.record("a foreign lease was released")
                return "accepted"
            } catch {
                guard case .badParam(let reason)? = error as? AudioSessionError else { Issue.record("\(error)"); return "\(error)" }
                #expect(session.state == before)
                #expect(other.state.leases.count == 1)
                return reason
            }
        },
    ]

    @Test("a bad request is refused with a typed error or defined as harmless, and the session still works", arguments: rows)
    func badRequest(_ row: Row) throws {
        let session = try makeSession()
        let base = session.configuration
        let outcome = try row.act(session)
        print("ROW session \(row.name) → \(outcome)")
        try Self.expectStillWorks(session, base: base)
    }

    @Test("10 000 random operations from 8 tasks at once keep every invariant and every event chain")
    func tenThousandOperations() async throws {
        let session = try makeSession()
        let initial = session.resolvedState
        let events = EventRecorder(session)
        let tasks = 8, steps = 1_250
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask { SessionPropertyTests.runWorker(task, seed: 0x5EED_2026, steps: steps, on: session) }
            }
        }
        for source in InterruptionSource.allCases { session.endInterruption(source, shouldResume: true) }
        let final = session.resolvedState
        #expect(session.state.leases.isEmpty && session.state.ducks.isEmpty && session.state.devices.isEmpty)
        #expect(final.configuration == session.state.base)
        SessionPropertyTests.checkChains(events.events, initial: initial, final: final)
        print("ROW session 10 000 operations from 8 tasks → \(events.events.count) events, invariants held")
        try Self.expectStillWorks(session, base: session.configuration)
    }

    /// A voice call resolves (playAndRecord, recording, voice processing — a chat mode the base
    /// already has is kept, rule 1) and its release returns to `base`.
    static func expectStillWorks(_ session: AudioSession, base: AudioConfiguration) throws {
        let leases = session.state.leases.count
        let call = try session.lease(.voiceCall, owner: "rtc")
        let resolved = session.resolvedState
        #expect(resolved.configuration.category == .playAndRecord)
        #expect(resolved.isRecording && resolved.processingProfile == .voice)
        try session.release(call)
        #expect(session.configuration == base)
        #expect(session.state.leases.count == leases)
    }
}
