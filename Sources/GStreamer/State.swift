import CGStreamer

/// An element state (`GstState`).
public enum State: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// No pending state (`GST_STATE_VOID_PENDING`).
    case voidPending = 0
    /// Resources released (`GST_STATE_NULL`).
    case null = 1
    /// Resources allocated, not processing (`GST_STATE_READY`).
    case ready = 2
    /// Prerolled, clock stopped (`GST_STATE_PAUSED`).
    case paused = 3
    /// Running (`GST_STATE_PLAYING`).
    case playing = 4

    init(_ state: GstState) { self = State(rawValue: Int(state.rawValue)) ?? .voidPending }
    var raw: GstState { GstState(rawValue: UInt32(rawValue)) }

    public var description: String {
        switch self {
        case .voidPending: return "VOID_PENDING"
        case .null: return "NULL"
        case .ready: return "READY"
        case .paused: return "PAUSED"
        case .playing: return "PLAYING"
        }
    }

    public static func < (lhs: State, rhs: State) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The outcome of a successful state change (`GstStateChangeReturn` other than FAILURE).
public enum StateChangeResult: Sendable, Hashable {
    /// Done (`GST_STATE_CHANGE_SUCCESS`).
    case success
    /// Will complete asynchronously, e.g. while sinks preroll (`GST_STATE_CHANGE_ASYNC`).
    case async
    /// Done, but a live source cannot preroll in PAUSED (`GST_STATE_CHANGE_NO_PREROLL`).
    case noPreroll
}
