import CGStreamer
import Foundation
import Synchronization

/// A pipeline's or device monitor's message bus (`GstBus`).
///
/// Messages are read by one dedicated thread per bus, started by the first subscription and
/// stopped when the last one goes, and delivered in order to every subscriber. Subscribers run
/// on that thread: they must return quickly and hand longer work on.
public final class Bus: Object {
    override class var gType: GType? { gst_bus_get_type() }

    var gstBus: UnsafeMutablePointer<GstBus> { pointer(as: GstBus.self) }

    /// Calls `handler` with every message posted from now on, on the bus's reader thread.
    public func subscribe(_ handler: @escaping @Sendable (Message) -> Void) -> BusSubscription {
        BusReader.subscribe(self, handler: handler)
    }

    /// Every message posted from now on, as an async sequence; ends when the task is cancelled or the stream is dropped.
    public func messages(bufferingNewest limit: Int = 1024) -> AsyncStream<Message> {
        AsyncStream(bufferingPolicy: .bufferingNewest(limit)) { continuation in
            let subscription = subscribe { continuation.yield($0) }
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }

    /// Runs `action`, then waits up to `timeout` for a message matching `predicate` posted
    /// after the wait began (messages from `action` included); nil on timeout.
    ///
    /// Subscribing before acting is what makes this race-free: a message posted during
    /// `action` cannot slip past. Blocks the calling thread; never call it from a subscriber.
    public func waitForMessage<E: Error>(timeout: ClockTime, after action: () throws(E) -> Void = {},
                                         where predicate: @escaping @Sendable (Message) -> Bool) throws(E) -> Message? {
        let found = Mutex<Message?>(nil)
        let signal = DispatchSemaphore(value: 0)
        let subscription = subscribe { message in
            guard predicate(message) else { return }
            let first = found.withLock { current -> Bool in
                guard current == nil else { return false }
                current = message
                return true
            }
            if first { signal.signal() }
        }
        defer { subscription.cancel() }
        try action()
        _ = signal.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max)))))
        return found.withLock { $0 }
    }

    /// Posts an application message (wraps `gst_bus_post`).
    public func post(application structure: Structure) {
        gst_bus_post(gstBus, gst_message_new_application(nil, structure.copyForTransfer()))
    }
}

/// A bus subscription; cancelling it (or dropping the token) stops delivery.
public final class BusSubscription: Sendable {
    fileprivate let id: UInt64
    fileprivate let reader: BusReader

    fileprivate init(id: UInt64, reader: BusReader) { self.id = id; self.reader = reader }

    /// Stops delivery; harmless when already cancelled. Delivery already under way may finish.
    public func cancel() { reader.unsubscribe(id) }

    deinit { cancel() }
}

/// The reader thread of one bus and its subscribers.
final class BusReader: Sendable {
    private struct State {
        var subscribers: [(id: UInt64, handler: @Sendable (Message) -> Void)] = []
        var running = false
        var nextID: UInt64 = 0
    }

    /// Readers by bus, so every wrapper of one bus shares one thread. An entry lives while its
    /// thread runs (the thread holds a bus reference, so the address cannot be reused meanwhile).
    private static let readers = Mutex<[UInt: BusReader]>([:])

    /// Every running reader thread is in this group, so shutdown can wait for them.
    private static let threads = DispatchGroup()

    /// Set once at process shutdown: every reader stops.
    private static let shuttingDown = Atomic<Bool>(false)

    /// The structure name of the message that wakes the thread to check whether it should stop.
    private static let wakeName = "classroom-audio-bus-reader-wake"

    /// How long one wait for a message lasts. A pipeline set to NULL flushes its bus, which
    /// drops the wake message, so the thread must also look up on its own now and then.
    private static let idleCheck = ClockTime.milliseconds(100)

    /// The bus, held only while the thread runs: a reader kept alive by a forgotten subscription
    /// must not keep the bus alive past shutdown.
    private let bus: Mutex<Bus?>
    private let key: UInt
    private let state = Mutex(State())

    private init(bus: Bus) {
        self.bus = Mutex(bus)
        key = UInt(bitPattern: bus.rawPointer)
    }

    static func subscribe(_ bus: Bus, handler: @escaping @Sendable (Message) -> Void) -> BusSubscription {
        readers.withLock { readers in
            let key = UInt(bitPattern: bus.rawPointer)
            let reader = readers[key] ?? BusReader(bus: bus)
            readers[key] = reader
            let (id, start) = reader.state.withLock { state -> (UInt64, Bool) in
                state.nextID += 1
                state.subscribers.append((state.nextID, handler))
                defer { state.running = true }
                return (state.nextID, !state.running)
            }
            if start { reader.startThread() }
            return BusSubscription(id: id, reader: reader)
        }
    }

    /// Stops every reader thread and waits up to `timeout` for them to end (process shutdown).
    static func stopAll(timeout: ClockTime) {
        shuttingDown.store(true, ordering: .releasing)
        _ = threads.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds)))
    }

    func unsubscribe(_ id: UInt64) {
        let nowEmpty = state.withLock { state -> Bool in
            let before = state.subscribers.count
            state.subscribers.removeAll { $0.id == id }
            return before > 0 && state.subscribers.isEmpty
        }
        if nowEmpty, let bus = bus.withLock({ $0 }) {
            // Wake the thread so it notices at once that nobody is left (dropped if the bus flushes).
            if let structure = try? Structure(name: Self.wakeName) { bus.post(application: structure) }
        }
    }

    private func startThread() {
        BusReader.threads.enter()
        // Weak: the registry holds the reader while it runs; once run() returns, nothing here
        // keeps it (or its bus) alive, so shutdown waiting on `threads` sees the bus released.
        let thread = Thread { [weak self] in
            self?.run()
            BusReader.threads.leave()
        }
        thread.name = "gst-bus-\(bus.withLock { $0?.name ?? "" })"
        thread.start()
    }

    private func run() {
        guard let bus = bus.withLock({ $0 }) else { return }
        while true {
            if let raw = gst_bus_timed_pop(bus.gstBus, BusReader.idleCheck.gst) {
                let message = Message(adopting: raw)
                let isWake: Bool
                if case .application(let structure) = message.view, structure.name == Self.wakeName { isWake = true } else { isWake = false }
                if !isWake {
                    let handlers = state.withLock { $0.subscribers.map(\.handler) }
                    for handler in handlers { handler(message) }
                }
            }
            if stopIfIdle() { return }
        }
    }

    /// Leaves the registry and stops when nobody is subscribed or the process shuts down.
    private func stopIfIdle() -> Bool {
        BusReader.readers.withLock { readers in
            state.withLock { state in
                guard state.subscribers.isEmpty || BusReader.shuttingDown.load(ordering: .acquiring) else { return false }
                state.running = false
                state.subscribers.removeAll()
                readers.removeValue(forKey: key)
                bus.withLock { $0 = nil }
                return true
            }
        }
    }
}

// Thread-safe like every GstObject wrapper (see Object).
extension Bus: @unchecked Sendable {}
