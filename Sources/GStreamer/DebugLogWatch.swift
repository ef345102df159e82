import CGStreamer
import Foundation
import Synchronization

/// Calls a handler whenever a GStreamer element logs a given message: for the few conditions an
/// element reports only in its debug log. pulsesink says a PulseAudio underflow only as the
/// WARNING "Got underflow" (`gst_pulsering_stream_underflow_cb`); it posts no bus message and no
/// QoS (measured: none after a 200 ms SIGSTOP, 3 warnings after a 30 ms one with a 40 ms buffer).
///
/// While a watch needs a category's level that the user's `GST_DEBUG` leaves off, the threshold is
/// raised and those extra messages are kept off stderr: GStreamer's own printer is swapped for one
/// that prints exactly what the user asked for. With `GST_DEBUG_FILE` set, the file gets them too.
public final class DebugLogWatch: Sendable {
    /// The category (e.g. "pulse"), the level the message is logged at, and text it contains.
    public let category: String
    public let level: DebugLevel
    public let containing: String
    /// The object the message must be about (its address: an identity, never dereferenced).
    fileprivate let object: UInt
    fileprivate let handler: @Sendable () -> Void

    /// Starts watching what `object` logs (wraps `gst_debug_add_log_function`, once per process). The
    /// category must be registered, i.e. its plugin loaded (as it is once `object` exists); throws
    /// otherwise. Keep the watch. `handler` runs on the logging thread: it must return at once.
    public init(category: String, level: DebugLevel, containing: String, about object: Object,
                _ handler: @escaping @Sendable () -> Void) throws(GStreamerError) {
        self.category = category
        self.level = level
        self.containing = containing
        self.object = UInt(bitPattern: object.gstObject)
        self.handler = handler
        try DebugLogRouter.shared.add(self)
    }

    deinit { DebugLogRouter.shared.remove(self) }
}

/// GStreamer's debug levels (`GstDebugLevel`) a watch can ask for.
public enum DebugLevel: Int32, Sendable, Comparable {
    case error = 1, warning = 2, fixme = 3, info = 4, debug = 5, log = 6

    public static func < (lhs: DebugLevel, rhs: DebugLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The one log function the process adds, and the thresholds it raised.
private final class DebugLogRouter: Sendable {
    static let shared = DebugLogRouter()

    private struct State {
        var watches: [ObjectIdentifier: Weak] = [:]
        /// Categories raised for a watch, with the threshold the user had for each.
        var raised: [String: Int32] = [:]
        var installed = false
        /// True when GStreamer's stderr printer was swapped for `route`.
        var printing = false
    }
    private struct Weak: @unchecked Sendable { weak var watch: DebugLogWatch? }   // read under the lock only
    private let state = Mutex(State())

    func add(_ watch: DebugLogWatch) throws(GStreamerError) {
        guard let category = Self.category(named: watch.category) else {
            throw .failed("GStreamer has no debug category '\(watch.category)' (its plugin is not loaded)")
        }
        state.withLock { state in
            let current = gst_debug_category_get_threshold(category).rawValue
            if current < UInt32(watch.level.rawValue) {
                if state.raised[watch.category] == nil { state.raised[watch.category] = Int32(current) }
                gst_debug_category_set_threshold(category, GstDebugLevel(rawValue: UInt32(watch.level.rawValue)))
            }
            state.watches[ObjectIdentifier(watch)] = Weak(watch: watch)
            guard !state.installed else { return }
            state.installed = true
            // A log file the user named keeps GStreamer's printer: its FILE is not reachable from here.
            if ProcessInfo.processInfo.environment["GST_DEBUG_FILE"]?.isEmpty ?? true {
                state.printing = gst_debug_remove_log_function(gst_debug_log_default) > 0
            }
            gst_debug_add_log_function(routeDebugMessage, nil, nil)
        }
    }

    func remove(_ watch: DebugLogWatch) {
        state.withLock { state in
            state.watches[ObjectIdentifier(watch)] = nil
            state.watches = state.watches.filter { $0.value.watch != nil }
        }
    }

    /// What a message at `level` in `category` means: the watches it fires, and whether the user asked to see it.
    fileprivate func route(category: String, level: Int32, object: UInt, message: () -> String?) -> Bool {
        let (matching, original, printing) = state.withLock { state in
            (state.watches.values.compactMap(\.watch).filter { $0.category == category && $0.level.rawValue == level && $0.object == object },
             state.raised[category], state.printing)
        }
        if !matching.isEmpty, let text = message() {
            for watch in matching where text.contains(watch.containing) { watch.handler() }
        }
        guard printing else { return false }
        return original.map { level <= $0 } ?? true
    }

    private static func category(named name: String) -> UnsafeMutablePointer<GstDebugCategory>? {
        let list = gst_debug_get_all_categories()   // transfer container: the list is ours, the categories are not
        defer { g_slist_free(list) }
        var node = list
        while let current = node {
            if let category = current.pointee.data?.assumingMemoryBound(to: GstDebugCategory.self),
               let cName = gst_debug_category_get_name(category), String(cString: cName) == name {
                return category
            }
            node = current.pointee.next
        }
        return nil
    }
}

/// The log function: hands each message to the router, and prints it as GStreamer would when the user asked for it.
private func routeDebugMessage(_ category: UnsafeMutablePointer<GstDebugCategory>?, _ level: GstDebugLevel, _ file: UnsafePointer<gchar>?,
                   _ function: UnsafePointer<gchar>?, _ line: gint, _ object: UnsafeMutablePointer<GObject>?,
                   _ message: OpaquePointer?, _ userData: gpointer?) {
    guard let category, let cName = gst_debug_category_get_name(category) else { return }
    let prints = DebugLogRouter.shared.route(category: String(cString: cName), level: Int32(level.rawValue), object: UInt(bitPattern: object),
                                             message: { gst_debug_message_get(message).map { String(cString: $0) } })
    if prints { gst_debug_log_default(category, level, file, function, line, object, message, nil) }
}
