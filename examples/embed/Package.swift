// swift-tools-version:6.1
// A kiosk application that embeds classroom-audio: it depends on the project by path, as an
// integrator's package depends on it by URL and version.
import PackageDescription

let package = Package(
    name: "embed",
    dependencies: [
        .package(name: "classroom-audio", path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "embed",
            dependencies: [
                .product(name: "GStreamer", package: "classroom-audio"),
                .product(name: "ClassroomAudio", package: "classroom-audio"),
                .product(name: "ClassroomEngine", package: "classroom-audio"),
                .product(name: "ClassroomNetwork", package: "classroom-audio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
