// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "classroom-audio",
    products: [
        .library(name: "GStreamer", targets: ["GStreamer"]),
        .library(name: "ClassroomAudio", targets: ["ClassroomAudio"]),
        .library(name: "ClassroomEngine", targets: ["ClassroomEngine"]),
        .library(name: "ClassroomNetwork", targets: ["ClassroomNetwork"]),
        .library(name: "TLS", targets: ["TLS"]),
        .library(name: "Systemd", targets: ["Systemd"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "PulseAudio", targets: ["PulseAudio"]),
        .executable(name: "classroom-player", targets: ["classroom-player"]),
        .executable(name: "classroom-bench", targets: ["classroom-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // Prometheus' text exposition for --metrics; it brings swift-metrics (CoreMetrics) and swift-atomics.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `make docs`: the API reference (DocC) of the library products; a plugin, never linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The GStreamer C API. All its headers live under gstreamer-1.0's include dir, so the
        // cflags of gstreamer-app-1.0 cover -audio, -controller and -pbutils too; the
        // modulemap links those libraries.
        .systemLibrary(
            name: "CGStreamer",
            path: "CGStreamer",
            pkgConfig: "gstreamer-app-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        // libsystemd: service notifications (sd_notify, the watchdog) and the journal's native protocol.
        .systemLibrary(
            name: "CSystemd",
            path: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Safe Swift bindings over libsystemd: the only target that imports CSystemd.
        .target(
            name: "Systemd",
            dependencies: ["CSystemd"]
        ),
        // GIO's D-Bus API (GDBus), which GStreamer's GLib already brings: for MPRIS on the session bus.
        .systemLibrary(
            name: "CGIO",
            path: "CGIO",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // Safe Swift bindings over GDBus: an object exported on a bus; the only target that imports CGIO.
        .target(
            name: "DBus",
            dependencies: ["CGIO"]
        ),
        // OpenSSL's TLS client (libssl), for the Janus API over HTTPS.
        .systemLibrary(
            name: "COpenSSL",
            path: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // A TLS client over a connected socket, verified against the system's CAs or a given one: the only target that imports COpenSSL.
        .target(
            name: "TLS",
            dependencies: ["COpenSSL"]
        ),
        // libpulse's client API: moving our own playback stream, which pulsesink 1.22 cannot do safely.
        .systemLibrary(
            name: "CPulse",
            path: "CPulse",
            pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // A client of the sound server's native protocol, connected per request: the only target that imports CPulse.
        .target(
            name: "PulseAudio",
            dependencies: ["CPulse"]
        ),
        // Safe Swift bindings: the only target that imports CGStreamer.
        .target(
            name: "GStreamer",
            dependencies: ["CGStreamer"]
        ),
        // The session model: pure Swift, no GStreamer.
        .target(
            name: "ClassroomAudio",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        // Pipelines and the session controller: applies resolved session state to GStreamer.
        .target(
            name: "ClassroomEngine",
            dependencies: ["GStreamer", "PulseAudio", "ClassroomAudio", .product(name: "Logging", package: "swift-log")]
        ),
        // The network side: peer feeds (RTP with its latch, SDP, files and network URIs), the uplink
        // sender, RTP endpoints and the Janus room; it feeds the engine's inputs and sends its uplink.
        .target(
            name: "ClassroomNetwork",
            dependencies: ["ClassroomEngine", "GStreamer", "TLS", .product(name: "Logging", package: "swift-log")]
        ),
        // Real signals through the engine and what comes out: shared by the engine tests and the benchmark.
        .target(
            name: "ClassroomMeasurement",
            dependencies: ["ClassroomEngine", "GStreamer", .product(name: "Logging", package: "swift-log")]
        ),
        // Every measurement of DESIGN §7 in one run; writes docs/BENCHMARKS.md and docs/benchmarks.json.
        .executableTarget(
            name: "classroom-bench",
            dependencies: [
                "ClassroomMeasurement", "ClassroomEngine", "ClassroomNetwork", "ClassroomAudio", "GStreamer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "classroom-player",
            dependencies: [
                "GStreamer", "ClassroomAudio", "ClassroomEngine", "ClassroomNetwork", "Systemd", "DBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "GStreamerTests",
            dependencies: ["GStreamer"]
        ),
        .testTarget(
            name: "TLSTests",
            dependencies: ["TLS"]
        ),
        .testTarget(
            name: "SystemdTests",
            dependencies: ["Systemd"]
        ),
        // Moves a stream pacat plays on the private PulseAudio server (scripts/with-pulseaudio.sh).
        .testTarget(
            name: "PulseAudioTests",
            dependencies: ["PulseAudio", "ClassroomMeasurement"]
        ),
        // Exports objects on a private dbus-daemon and calls them with gdbus.
        .testTarget(
            name: "DBusTests",
            dependencies: ["DBus"]
        ),
        .testTarget(
            name: "ClassroomEngineTests",
            dependencies: ["ClassroomEngine", "ClassroomMeasurement", "GStreamer", "ClassroomAudio", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "ClassroomNetworkTests",
            dependencies: ["ClassroomNetwork", "ClassroomEngine", "GStreamer", "ClassroomMeasurement", "TLS"]
        ),
        // Runs the built classroom-player as a subprocess (it is built with the tests: swift build --build-tests);
        // takes from the network only what a test's servers share with it (LocalPort), and the room rig (RoomRig).
        .testTarget(
            name: "ClassroomPlayerTests",
            dependencies: ["ClassroomNetwork", "ClassroomEngine", "ClassroomMeasurement", "TLS"]
        ),
        .testTarget(
            name: "ClassroomAudioTests",
            dependencies: [
                "ClassroomAudio",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
