/// Where in the kiosk's code a request came from, for alarms and logs.
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    /// The `#fileID` of the caller ("Module/File.swift").
    public let fileID: String
    /// The `#line` of the caller.
    public let line: Int

    /// Records a call site; pass `#fileID` and `#line` through from the public entry point.
    public init(fileID: String, line: Int) {
        self.fileID = fileID
        self.line = line
    }

    /// "Module/File.swift:42".
    public var description: String { "\(fileID):\(line)" }
}
