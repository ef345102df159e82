import Foundation
import GStreamer

/// Turns what the user typed (a path or a URI) into a URI GStreamer can open.
enum MediaLocation {
    /// The schemes a lesson loaded while playing may have (`load`, MPRIS `OpenUri`, which
    /// announces them as `SupportedUriSchemes`): what this player's GStreamer opens.
    static let lessonSchemes = ["file", "http", "https", "rtsp"]

    /// A `file://` URI for an existing readable regular file, or the URI as given when it has
    /// another scheme (one of `schemes`, when given). A `file://` URI is checked like a path.
    static func uri(for argument: String, role: String, schemes: [String]? = nil) throws(PlayerError) -> String {
        var path = argument
        if let scheme = argument.split(separator: ":", maxSplits: 1).first, argument.contains("://"),
           scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            let lower = scheme.lowercased()
            if let schemes, !schemes.contains(lower) {
                throw PlayerError.cannotUse(role: role, what: argument,
                                            reason: "\(lower):// is not a scheme the player opens (it opens \(schemes.map { "\($0)://" }.joined(separator: ", ")))")
            }
            if lower != "file" {
                // uridecodebin reports a scheme nothing reads as a missing plugin, which reads like a missing decoder.
                guard ElementFactory.hasSource(forScheme: lower) else {
                    throw PlayerError.cannotUse(role: role, what: argument, reason: "no GStreamer source here reads \(lower):// addresses; check the address (file://, http://, https:// and rtsp:// are read with gstreamer1.0-plugins-good)")
                }
                return argument
            }
            guard let local = URL(string: argument), local.isFileURL else {
                throw PlayerError.unreadableInput(role: role, path: argument, reason: "it is not a valid file:// URI")
            }
            path = local.path
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "it is a directory")
        }
        // Opening a FIFO blocks until someone writes to it, a device may never end: neither is a media file.
        if let kind = nonRegularKind(path) {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "it is \(kind), not a media file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "permission denied")
        }
        return URL(fileURLWithPath: path).standardizedFileURL.absoluteString
    }

    /// What the file at `path` (links followed) is when it is not a regular file: "a FIFO (named pipe)" …
    private static func nonRegularKind(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}
