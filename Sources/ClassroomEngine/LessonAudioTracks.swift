import GStreamer
import Logging
import Synchronization

/// The lesson's audio tracks (a bilingual lesson has two): each decoded into an input-selector,
/// one of them heard; switching is a property change on the selector, gapless.
///
///     track 0 ─┐
///     track 1 ─┴► input-selector ► queue ► convert ► resample ► scaletempo ► convert ► resample ► appsink ─► courseware
final class LessonAudioTracks: Sendable {
    /// One audio track as the lesson player sees it.
    struct Track: Sendable {
        /// The decoder's pad (its sticky tags name the language).
        let source: Pad
        /// The selector's pad it feeds.
        let selectorPad: Pad
    }

    private struct State: Sendable {
        var selector: Element?
        var tracks: [Track] = []
        var wanted: Int
    }

    private let state: Mutex<State>

    /// `wanted` is the track heard first (0-based, in the order the file exposes them).
    init(wanted: Int) { state = Mutex(State(wanted: wanted)) }

    /// Adds a decoded audio pad: the selector and the chain behind it are built with the first.
    func add(_ pad: Pad, building chain: () throws(GStreamerError) -> Element) throws(GStreamerError) {
        try state.withLock { (state: inout State) throws(GStreamerError) in
            let selector: Element
            if let existing = state.selector {
                selector = existing
            } else {
                selector = try chain()
                state.selector = selector
            }
            let selectorPad = try selector.requestPad("sink_%u")
            try pad.link(to: selectorPad)
            state.tracks.append(Track(source: pad, selectorPad: selectorPad))
            if state.tracks.count - 1 == state.wanted { try selector.set("active-pad", .object(selectorPad)) }
        }
    }

    /// How many audio tracks the lesson has shown so far.
    var count: Int { state.withLock { $0.tracks.count } }

    /// The track heard (0-based).
    var selected: Int { state.withLock { $0.wanted } }

    /// Each track's language code (ISO 639), when the file says.
    var languages: [String?] { state.withLock { $0.tracks }.map { $0.source.tag("language-code") } }

    /// Makes `index` the track heard; throws when the lesson has no such track.
    func select(_ index: Int) throws(EngineError) {
        try state.withLock { (state: inout State) throws(EngineError) in
            guard index >= 0, index < state.tracks.count, let selector = state.selector else {
                throw .lessonFailed("the lesson has \(state.tracks.count) audio track\(state.tracks.count == 1 ? "" : "s"); track \(index) does not exist")
            }
            try EngineError.wrap { () throws(GStreamerError) in try selector.set("active-pad", .object(state.tracks[index].selectorPad)) }
            state.wanted = index
        }
    }
}
