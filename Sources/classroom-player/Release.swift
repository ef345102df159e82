import GStreamer

/// The release this build is. CHANGELOG.md's latest entry names the same version (a test holds
/// the two together), and a release is tagged with it.
enum Release {
    static let version = "0.9.0"

    /// What `--version` prints: the release, and the GStreamer it runs on (the kiosk's, not the build machine's).
    static var description: String { "\(version) (GStreamer \(GStreamer.version))" }
}
