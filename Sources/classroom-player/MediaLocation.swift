import Foundation

/// Turns what the user typed (a path or a URI) into a URI GStreamer can open.
enum MediaLocation {
    /// A `file://` URI for an existing readable file, or the URI as given when it has a scheme.
    static func uri(for argument: String, role: String) throws(PlayerError) -> String {
        if let scheme = argument.split(separator: ":", maxSplits: 1).first, argument.contains("://"),
           scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            return argument
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "it is a directory")
        }
        guard FileManager.default.isReadableFile(atPath: argument) else {
            throw PlayerError.unreadableInput(role: role, path: argument, reason: "permission denied")
        }
        return URL(fileURLWithPath: argument).standardizedFileURL.absoluteString
    }
}
