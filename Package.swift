// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Pasteboard",
    products: [
        .library(name: "PasteboardKit", targets: ["PasteboardKit"]),
        .library(name: "PasteboardHistory", targets: ["PasteboardHistory"]),
        .executable(name: "pb", targets: ["pb"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "CSystemShim"),
        .target(name: "PasteboardKit"),
        .target(name: "SQLiteSupport", dependencies: ["CSQLite"]),
        .target(name: "PasteboardHistory", dependencies: ["PasteboardKit", "SQLiteSupport"]),
        .target(name: "ArgumentParsing"),
        .target(name: "PasteboardDaemon", dependencies: ["PasteboardKit", "PasteboardHistory", "CSystemShim"]),
        .target(
            name: "PasteboardCLI",
            dependencies: ["PasteboardKit", "PasteboardHistory", "ArgumentParsing", "PasteboardDaemon"]
        ),
        .executableTarget(name: "pb", dependencies: ["PasteboardCLI"]),

        .testTarget(name: "PasteboardKitTests", dependencies: ["PasteboardKit"]),
        .testTarget(name: "SQLiteSupportTests", dependencies: ["SQLiteSupport"]),
        .testTarget(name: "PasteboardHistoryTests", dependencies: ["PasteboardHistory", "PasteboardKit"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
        .testTarget(name: "PasteboardCLITests", dependencies: ["PasteboardCLI", "PasteboardHistory", "PasteboardKit"]),
    ]
)

// The same strict settings for every Swift target.
for target in package.targets where target.type != .system && target.name != "CSystemShim" {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
