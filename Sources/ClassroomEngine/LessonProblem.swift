import GStreamer

/// Why a lesson cannot be played, in terms a kiosk operator can act on.
public enum LessonProblem: String, Sendable, Hashable, CaseIterable {
    /// There is no file (or URI target) there.
    case notFound
    /// It exists but cannot be read: a directory, no permission, an I/O error.
    case unreadable
    /// Empty, or not in a format GStreamer recognises.
    case notMedia
    /// Recognised, but incomplete or damaged (a truncated download, a broken header).
    case damaged
    /// A stream's codec has no decoder installed.
    case noDecoder
    /// Anything else; the detail says what GStreamer reported.
    case other

    /// What the operator can do about it.
    public var advice: String {
        switch self {
        case .notFound: return "check the path or URI"
        case .unreadable: return "check that it is a file the kiosk user may read"
        case .notMedia: return "the file is empty, damaged or not a media file; replace it"
        case .damaged: return "the file is incomplete or damaged (a truncated copy?); copy it again"
        case .noDecoder: return "install the decoder for its codec (make setup installs gstreamer1.0-libav), or convert the lesson to WebM or MP4 (H.264/AAC)"
        case .other: return "see the detail and GST_DEBUG=3 output"
        }
    }

    /// Classifies an error posted by the lesson pipeline (GStreamer's error domains and codes, gsterror.h).
    static func classify(_ error: GLibError) -> LessonProblem {
        switch (error.domain, error.code) {
        case ("gst-resource-error-quark", 3): return .notFound                 // NOT_FOUND
        case ("gst-resource-error-quark", 5), ("gst-resource-error-quark", 9),
             ("gst-resource-error-quark", 15): return .unreadable               // OPEN_READ, READ, NOT_AUTHORIZED
        // WRONG_TYPE: recognised, but as no media (decodebin: "This appears to be a text file").
        case ("gst-stream-error-quark", 4), ("gst-stream-error-quark", 5): return .notMedia   // TYPE_NOT_FOUND, WRONG_TYPE
        case ("gst-stream-error-quark", 7), ("gst-stream-error-quark", 9),
             ("gst-stream-error-quark", 11): return .damaged                                 // DECODE, DEMUX, FORMAT
        case ("gst-stream-error-quark", 6), ("gst-core-error-quark", 12): return .noDecoder  // CODEC_NOT_FOUND, MISSING_PLUGIN
        default: return .other
        }
    }
}
