import CGStreamer
import Synchronization

/// A connected GObject signal handler; disconnecting it (or dropping the token) undoes it
/// (wraps `g_signal_connect_data` / `g_signal_handler_disconnect`).
public final class SignalHandler: Sendable {
    private let object: Object
    private let id: gulong

    /// Taken by the one `disconnect()` that does it: checking GLib first and then disconnecting
    /// let two threads both disconnect (GLib then warns of an unknown handler id).
    private let disconnected = Atomic<Bool>(false)

    private init(object: Object, id: gulong) { self.object = object; self.id = id }

    /// Connects `callback` (a C trampoline) to `signal` with `handler` boxed as its user data,
    /// released by GLib when the handler is disconnected.
    static func connect<Box: AnyObject>(_ object: Object, signal: String, handler: Box, callback: GCallback) -> SignalHandler {
        let context = Unmanaged.passRetained(handler).toOpaque()
        let id = g_signal_connect_data(object.rawPointer, signal, callback, context, { data, _ in
            guard let data else { return }
            Unmanaged<AnyObject>.fromOpaque(data).release()
        }, GConnectFlags(rawValue: 0))
        return SignalHandler(object: object, id: id)
    }

    /// True while connected.
    public var isConnected: Bool { !disconnected.load(ordering: .acquiring) && g_signal_handler_is_connected(object.rawPointer, id) != 0 }

    /// Disconnects the handler; harmless when already disconnected, from any number of threads.
    public func disconnect() {
        guard !disconnected.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if g_signal_handler_is_connected(object.rawPointer, id) != 0 { g_signal_handler_disconnect(object.rawPointer, id) }
    }

    deinit { disconnect() }
}
