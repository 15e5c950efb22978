// swift-tools-version:6.0
import PackageDescription

// Code written for Apple's CoreTransferable and UniformTypeIdentifiers, with only its imports changed to
// `import PasteboardKit`, built as a program outside the Pasteboard package, once per language mode.
// Both targets compile the same files: `Sources/Swift5/AppleStyle` and `Sources/Swift6/AppleStyle` are
// symbolic links to `AppleStyle/`.
let package = Package(
    name: "AppleCompat",
    // Named, because a path dependency's identity is otherwise its directory's name, which depends on
    // where the repository is checked out.
    dependencies: [.package(name: "Pasteboard", path: "../..")],
    targets: [
        .executableTarget(
            name: "apple-compat-swift5",
            dependencies: [.product(name: "PasteboardKit", package: "Pasteboard")],
            path: "Sources/Swift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "apple-compat-swift6",
            dependencies: [.product(name: "PasteboardKit", package: "Pasteboard")],
            path: "Sources/Swift6",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
