import CGStreamer

/// Process-wide GStreamer initialisation and version information.
public enum GStreamer {
    /// Initialises GStreamer once for the process; safe to call from any thread, any number of times (wraps `gst_init_check`).
    public static func initialize() throws(GStreamerError) {
        if let failure = initialization { throw failure }
    }

    private static let initialization: GStreamerError? = {
        var error: UnsafeMutablePointer<GError>?
        if gst_init_check(nil, nil, &error) == 0 {
            return .initializationFailed(GLibError(consuming: error)?.message ?? "gst_init_check failed")
        }
        return nil
    }()

    /// The runtime GStreamer version (wraps `gst_version`).
    public static var version: Version {
        var major: guint = 0, minor: guint = 0, micro: guint = 0, nano: guint = 0
        gst_version(&major, &minor, &micro, &nano)
        return Version(major: Int(major), minor: Int(minor), micro: Int(micro), nano: Int(nano))
    }

    /// A GStreamer version number.
    public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Major version.
        public var major: Int
        /// Minor version.
        public var minor: Int
        /// Micro version.
        public var micro: Int
        /// Nano version: 0 for releases, 1 for git, 2+ for pre-releases.
        public var nano: Int

        /// A version by its parts.
        public init(major: Int, minor: Int, micro: Int, nano: Int = 0) {
            self.major = major
            self.minor = minor
            self.micro = micro
            self.nano = nano
        }

        /// "1.22.0".
        public var description: String { "\(major).\(minor).\(micro)" }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.micro, lhs.nano) < (rhs.major, rhs.minor, rhs.micro, rhs.nano)
        }
    }

    /// Shuts GStreamer down when the process exits (registers `gst_deinit` with `atexit`).
    ///
    /// Only for leak checks: the `leaks` tracer reports in `gst_deinit`. Every pipeline must be
    /// gone by then; production code never calls this.
    public static func deinitializeAtExit() {
        _ = registerDeinitAtExit
    }

    private static let registerDeinitAtExit: Void = {
        atexit {
            // Bus reader threads hold bus references; stop them first so only real leaks remain.
            BusReader.stopAll(timeout: .seconds(2))
            gst_deinit()
        }
    }()
}
