import CGStreamer

/// A `GError` copied into Swift: domain, code and message, never swallowed.
public struct GLibError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error domain, e.g. "gst-resource-error-quark".
    public var domain: String
    /// The domain-specific code (for `gst-resource-error-quark`, `GstResourceError`).
    public var code: Int
    /// The human-readable message.
    public var message: String

    /// An error value made on the Swift side.
    public init(domain: String, code: Int, message: String) {
        self.domain = domain; self.code = code; self.message = message
    }

    /// Copies and frees a GError (transfer full); nil when there was none.
    init?(consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else { return nil }
        defer { g_error_free(error) }
        self.init(copying: error)
    }

    /// Copies a GError owned by someone else.
    init(copying error: UnsafeMutablePointer<GError>) {
        domain = g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "unknown"
        code = Int(error.pointee.code)
        message = error.pointee.message.map { String(cString: $0) } ?? ""
    }

    /// "message (domain:code)".
    public var description: String { "\(message) (\(domain):\(code))" }

    /// True for GStreamer's resource errors (file not found, device busy, cannot open …).
    public var isResourceError: Bool { domain == "gst-resource-error-quark" }
    /// True for GStreamer's stream errors (decode failures, wrong type, no decoder …).
    public var isStreamError: Bool { domain == "gst-stream-error-quark" }
}
