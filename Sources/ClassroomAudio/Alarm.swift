/// Something an operator must hear about, with who caused it and where.
public struct Alarm: Sendable, Hashable, CustomStringConvertible {
    /// The kind of alarm.
    public let code: AlarmCode
    /// The module the alarm is about.
    public let owner: String
    /// Where the alarm was raised, or where the request that caused it was made.
    public let callSite: CallSite
    /// A sentence for the operator.
    public let message: String
    /// Extra facts for the investigation (configurations, device names, levels).
    public let context: [String: String]

    /// Describes an alarm.
    public init(code: AlarmCode, owner: String, callSite: CallSite, message: String, context: [String: String] = [:]) {
        self.code = code
        self.owner = owner
        self.callSite = callSite
        self.message = message
        self.context = context
    }

    /// "[1029 sessionCorrected] webview at WebView/Bridge.swift:12: …".
    public var description: String {
        "[\(code)] \(owner) at \(callSite): \(message)"
    }
}
