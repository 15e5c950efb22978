// swift-tools-version:6.0
import Foundation
import PackageDescription

/// GTK 4's include directories: only the `-I` flags of `pkg-config --cflags gtk4`. Naming `pkgConfig: "gtk4"` on the
/// systemLibrary instead makes SwiftPM warn about the rest of those Cflags (glib's `-pthread`, graphene's `-msse
/// -msse2 -mfpmath=sse`), which it drops anyway: `-pthread` is part of glibc's libc since 2.34, and x86-64 always
/// has SSE2. The libraries are linked by name in `Sources/CGtk/module.modulemap`.
let gtkIncludeFlags: [String] = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags-only-I", "gtk4"]
    let output = Pipe()
    process.standardOutput = output
    do {
        try process.run()
    } catch {
        return []  // no pkg-config: the GTK targets fail to find <gtk/gtk.h>, which names what is missing
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init).filter { $0.hasPrefix("-I") }
}()

let package = Package(
    name: "Pasteboard",
    products: [
        .library(name: "PasteboardKit", targets: ["PasteboardKit"]),
        .library(name: "PasteboardHistory", targets: ["PasteboardHistory"]),
        .library(name: "PasteboardSystem", targets: ["PasteboardSystem"]),
        .executable(name: "pb", targets: ["pb"]),
        .executable(name: "pasteboard-ocr", targets: ["pasteboard-ocr"]),
        .executable(name: "pasteboard-gtk", targets: ["pasteboard-gtk"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "CSystemShim"),
        // SHA-256 block compression with the x86 SHA extensions, chosen at run time by PasteboardHistory's SHA256.
        .target(name: "CSHA256"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Zstandard: the history's packed payloads (PasteboardHistory's PayloadPacking).
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .target(name: "CStaticFoundation"),
        .target(
            name: "CX11",
            // XRes: the X-Resource extension, which names the process behind a selection owner (libxres-dev).
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("Xfixes"), .linkedLibrary("XRes")]
        ),
        // XTest for pb pick --paste, apart from CX11 so that only X11Paste links libXtst (libxtst-dev).
        .target(name: "CXTest", linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("Xtst")]),
        .target(name: "X11Paste", dependencies: ["CXTest", "TextSupport"]),
        // The data-control protocols' interface descriptions and marshalling wrappers (libwayland-dev).
        .target(name: "CWayland", linkerSettings: [.linkedLibrary("wayland-client")]),
        // The virtual-keyboard protocol for pb pick --paste on Wayland, apart from the clipboard backend's CWayland.
        .target(name: "CVirtualKeyboard", linkerSettings: [.linkedLibrary("wayland-client")]),
        .target(name: "WaylandPaste", dependencies: ["CVirtualKeyboard", "SystemSupport", "TextSupport"]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // Tesseract's C API and Leptonica's image reading, for the text recognizer only (libtesseract-dev).
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        // GTK 4 (libgtk-4-dev) without `pkgConfig:`: see gtkIncludeFlags above.
        .systemLibrary(name: "CGtk", providers: [.apt(["libgtk-4-dev"])]),
        // GObject types Swift cannot declare (G_DEFINE_TYPE): the rows and the list model behind the app's list.
        .target(name: "CGtkObjects", dependencies: ["CGtk"], cSettings: [.unsafeFlags(gtkIncludeFlags)]),
        // The X11 desktop around a GTK window (the pointer, placing it) for the popup.
        .target(
            name: "CGtkX11", dependencies: ["CGtk"], cSettings: [.unsafeFlags(gtkIncludeFlags)],
            linkerSettings: [.linkedLibrary("X11")]),
        .target(name: "ClipboardBackend", dependencies: ["PasteboardModel", "TextSupport"]),
        .target(
            name: "X11Backend",
            dependencies: ["ClipboardBackend", "PasteboardModel", "CX11", "SystemSupport", "TextSupport"]),
        .target(
            name: "WaylandBackend",
            dependencies: ["ClipboardBackend", "PasteboardModel", "CWayland", "SystemSupport", "TextSupport"]),
        // The C library seen from Swift, for every target: SystemError (the one place strerror text is built), threads.
        .target(name: "SystemSupport", dependencies: ["CSystemShim"]),
        // String operations FoundationEssentials lacks (trimming, case-blind comparison, printf numbers), quoted, Suggestion.
        .target(name: "TextSupport"),
        .target(name: "PasteboardModel", dependencies: ["SystemSupport", "TextSupport"]),
        // A D-Bus client written from the specification (no libdbus): the GNOME Shell extension's transport.
        .target(name: "DBusWire", dependencies: ["SystemSupport", "TextSupport"]),
        // The GNOME Shell extension's files (made by scripts/gnome_extension.py), its installation and presence.
        .target(name: "GnomeExtension", dependencies: ["DBusWire", "SystemSupport", "TextSupport"]),
        .target(name: "PasteboardKit", dependencies: ["PasteboardModel", "PasteboardSystem"]),
        .target(name: "SQLiteSupport", dependencies: ["CSQLite"]),
        .target(
            name: "PasteboardHistory",
            dependencies: [
                "CSHA256", "CZlib", "CZstd", "PasteboardModel", "PatternMatching", "SQLiteSupport", "SystemSupport",
                "TextSupport",
            ]),
        // Other clipboard managers' histories read into items (CopyQ, Klipper, GPaste, Maccy, ...) for pb import --from.
        .target(
            name: "HistoryImporters", dependencies: ["PasteboardModel", "SQLiteSupport", "SystemSupport", "TextSupport"]),
        .target(name: "ArgumentParsing", dependencies: ["TextSupport"]),
        // libcurl, loaded with dlopen on the first download (pb links no networking library).
        .target(name: "CURLShim", linkerSettings: [.linkedLibrary("dl")]),
        // Copy from URL for the app and pb copy --url: the download, its limits, redirects and address checks.
        .target(
            name: "URLFetching",
            dependencies: ["CURLShim", "PasteboardHistory", "PasteboardModel", "SystemSupport", "TextSupport"]),
        .target(name: "PatternMatching"),
        // Text in pictures through Tesseract, no C type in its API; only pasteboard-ocr links it (see its main.swift).
        .target(name: "TextRecognition", dependencies: ["CTesseract", "TextSupport"]),
        .target(name: "PasteboardControl", dependencies: ["CSystemShim", "SystemSupport", "TextSupport"]),
        // End-to-end encrypted sync through a shared folder (Syncthing or any other folder sync).
        .target(
            name: "PasteboardSync",
            dependencies: [
                "CSodium", "PasteboardHistory", "PasteboardModel", "SQLiteSupport", "PasteboardConfiguration",
                "SystemSupport", "TextSupport",
            ]),
        .target(
            name: "PasteboardConfiguration",
            dependencies: ["PasteboardModel", "PatternMatching", "SystemSupport", "TextSupport"]),
        // The one place that knows every display server's backend (BackendFactory), for the daemon and the clients.
        .target(name: "DisplayBackends", dependencies: ["ClipboardBackend", "TextSupport"]),
        // The paste keystroke of pb pick --paste and the popup, on X11 or Wayland (PasteTargets).
        .target(
            name: "DisplayPaste",
            dependencies: ["ClipboardBackend", "DisplayBackends", "PasteboardControl", "X11Paste", "WaylandPaste"]),
        .target(
            name: "PasteboardDaemon",
            dependencies: [
                "ClipboardBackend", "DBusWire", "DisplayBackends", "PasteboardConfiguration", "PasteboardControl", "X11Backend",
                "PasteboardHistory", "PasteboardModel", "PasteboardSync", "CSystemShim", "SystemSupport", "TextSupport",
            ]),
        .target(
            name: "PasteboardSystem",
            dependencies: [
                "ClipboardBackend", "DisplayBackends", "PasteboardConfiguration", "PasteboardControl", "PasteboardHistory",
                "PasteboardModel", "CSystemShim", "SystemSupport", "TextSupport", "WaylandBackend", "X11Backend",
            ]
        ),
        .target(
            name: "PasteboardPicker",
            dependencies: [
                "CSystemShim", "CZlib", "PasteboardHistory", "PasteboardModel", "SystemSupport", "TextSupport",
            ]),
        .target(
            name: "PasteboardCLI",
            dependencies: [
                "ArgumentParsing", "ClipboardBackend", "DisplayBackends", "DisplayPaste", "GnomeExtension",
                "HistoryImporters", "PasteboardConfiguration",
                "PasteboardControl", "PasteboardHistory", "PasteboardModel", "PasteboardPicker", "PasteboardSync",
                "PasteboardSystem", "PatternMatching", "SystemSupport", "TextSupport", "URLFetching",
            ]
        ),
        // Thin GTK 4 wrappers (no C type in their API), then the app over them; it is a client like pb.
        .target(
            name: "GtkSupport", dependencies: ["CGtk", "CGtkObjects", "CGtkX11"],
            swiftSettings: [.unsafeFlags(gtkIncludeFlags.flatMap { ["-Xcc", $0] })]),
        .target(
            name: "PasteboardApp",
            dependencies: [
                "ClipboardBackend", "DisplayBackends", "DisplayPaste", "GtkSupport", "PasteboardConfiguration",
                "PasteboardControl", "PasteboardHistory", "PasteboardModel", "PasteboardSystem", "SystemSupport",
                "TextSupport", "URLFetching",
            ]
        ),
        // CStaticFoundation: for the statically linked pb and pasteboard-gtk that `make build` and `make app` make
        // (see its mktemp.c).
        .executableTarget(name: "pasteboard-gtk", dependencies: ["PasteboardApp", "CStaticFoundation"]),
        .executableTarget(name: "pb", dependencies: ["PasteboardCLI", "PasteboardDaemon", "PasteboardSystem", "CStaticFoundation"]),
        // The daemon's text recognizer, a process of its own (Tesseract stays out of pb's start-up and address space).
        .executableTarget(name: "pasteboard-ocr", dependencies: ["TextRecognition"]),
        .executableTarget(name: "recent-history", dependencies: ["PasteboardHistory"], path: "Examples/RecentHistory"),
        .executableTarget(
            name: "clipboard-text", dependencies: ["PasteboardKit"], path: "Examples/ClipboardText"),
        .executableTarget(name: "profile", dependencies: ["PasteboardKit"], path: "Examples/Profile"),
        .executableTarget(name: "csv-archive", dependencies: ["PasteboardKit"], path: "Examples/CSVArchive"),
        .executableTarget(name: "video-file", dependencies: ["PasteboardKit"], path: "Examples/VideoFile"),

        .target(name: "PasteboardTestSupport", dependencies: ["PasteboardControl"], path: "Tests/Support"),
        .testTarget(name: "PasteboardKitTests", dependencies: ["PasteboardKit", "PasteboardModel"]),
        .testTarget(name: "SQLiteSupportTests", dependencies: ["SQLiteSupport"]),
        .testTarget(
            name: "PasteboardHistoryTests",
            dependencies: ["PasteboardHistory", "PasteboardKit", "PasteboardModel", "SQLiteSupport", "PasteboardTestSupport"]
        ),
        .testTarget(
            name: "PasteboardSyncTests",
            dependencies: [
                "PasteboardSync", "PasteboardHistory", "PasteboardModel", "PasteboardConfiguration", "PasteboardTestSupport",
                "SystemSupport",
            ]),
        .testTarget(name: "ClipboardBackendTests", dependencies: ["ClipboardBackend", "PasteboardModel"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing", "TextSupport"]),
        .testTarget(name: "PatternMatchingTests", dependencies: ["PatternMatching", "PasteboardTestSupport"]),
        .testTarget(name: "PasteboardControlTests", dependencies: ["PasteboardControl"]),
        // Runs private dbus-daemons (and dbus-send as a second implementation) against DBusWire.
        .testTarget(name: "DBusWireTests", dependencies: ["DBusWire", "PasteboardTestSupport"]),
        .testTarget(name: "PasteboardConfigurationTests", dependencies: ["PasteboardConfiguration", "PasteboardModel"]),
        .testTarget(
            name: "PasteboardDaemonTests",
            dependencies: [
                "PasteboardDaemon", "ClipboardBackend", "PasteboardConfiguration", "PasteboardControl", "PasteboardHistory",
                "PasteboardModel", "SQLiteSupport",
            ]),
        .testTarget(
            name: "X11BackendTests",
            dependencies: ["X11Backend", "ClipboardBackend", "PasteboardModel", "PasteboardTestSupport"]),
        // Drives the built pb on a headless sway with real clients (wl-clipboard, GTK 4, Tests/Fixtures' C source).
        .testTarget(name: "WaylandBackendTests", dependencies: ["PasteboardTestSupport", "WaylandPaste", "SystemSupport"]),
        .testTarget(
            name: "PasteboardCLITests",
            dependencies: [
                "PasteboardCLI", "PasteboardHistory", "PasteboardModel", "PasteboardPicker", "PasteboardTestSupport",
            ]
        ),
        .testTarget(
            name: "URLFetchingTests", dependencies: ["URLFetching", "PasteboardModel", "PasteboardTestSupport"],
            exclude: ["hostile_server.py"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["PasteboardHistory", "PasteboardModel", "PasteboardTestSupport"]),
        .testTarget(
            name: "PasteboardAppTests",
            dependencies: [
                "GtkSupport", "PasteboardApp", "PasteboardHistory", "PasteboardModel", "PasteboardTestSupport", "URLFetching",
            ],
            exclude: ["Support/fetch_server.py", "Support/paste_target.py", "Support/dnd_peer.py"]
        ),
        .testTarget(
            name: "PasteboardSystemTests",
            dependencies: ["PasteboardSystem", "PasteboardKit", "PasteboardHistory", "PasteboardControl", "PasteboardTestSupport"]
        ),
    ]
)

// The same strict settings for every Swift target.
for target in package.targets
where target.type != .system && !["CSHA256", "CSystemShim", "CX11", "CXTest", "CWayland", "CVirtualKeyboard", "CStaticFoundation", "CGtkObjects", "CGtkX11", "CURLShim"].contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
