import ClipboardBackend
import Foundation
import Testing
import X11Backend

/// What a capture reads of the offers real applications make (their TARGETS lists, as recorded under Xvfb), and
/// how Chromium's web custom data is read. No display needed.
@Suite struct TargetPlanTests {
    /// GTK 3's `gtk_clipboard_set_image` (GTK 4's texture copy offers the same formats).
    static let gtkImage = [
        "TIMESTAMP", "TARGETS", "MULTIPLE", "SAVE_TARGETS", "image/png", "image/jpeg", "image/bmp", "image/x-bmp",
        "image/x-MS-bmp", "image/x-icon", "image/x-ico", "image/x-win-bitmap", "image/vnd.microsoft.icon",
        "application/ico", "image/ico", "image/icon", "text/ico", "image/tiff",
    ]

    /// Qt 5's `QMimeData::setImageData`.
    static let qtImage = [
        "application/x-qt-image", "image/png", "image/bmp", "image/cur", "image/ico", "image/jpeg", "image/jpg",
        "image/pbm", "BITMAP", "image/pgm", "image/ppm", "PIXMAP", "image/xbm", "image/xpm", "TARGETS", "MULTIPLE",
        "TIMESTAMP", "SAVE_TARGETS",
    ]

    /// Chromium's "Copy image".
    static let chromiumImage = [
        "TIMESTAMP", "TARGETS", "SAVE_TARGETS", "MULTIPLE", "text/x-moz-url", "image/png", "text/html",
        "chromium/x-internal-source-rfh-token", "chromium/x-source-url",
    ]

    @Test(arguments: [gtkImage, qtImage])
    func aToolkitsPictureIsReadOnceAsPNG(_ offered: [String]) {
        #expect(TargetPlan.decide(offered) == .fetch(["image/png"]))
    }

    @Test func chromiumsCopyImageReadsThePictureFirstAndNeverTheFrameToken() {
        #expect(
            TargetPlan.decide(Self.chromiumImage)
                == .fetch(["image/png", "text/x-moz-url", "text/html", "chromium/x-source-url"]))
    }

    @Test func copyQsOwnerMarkerIsNeverRead() {
        let offered = ["text/plain", "UTF8_STRING", "STRING", "TEXT", "application/x-copyq-owner", "TARGETS"]
        #expect(TargetPlan.decide(offered) == .fetch(["UTF8_STRING", "text/plain"]), "text/plain: an alias")
    }

    @Test(arguments: [
        ["x-kde-passwordManagerHint", "UTF8_STRING"], ["UTF8_STRING", "x-kde-passwordManagerHint-secret"],
        ["UTF8_STRING", "org.nspasteboard.ConcealedType"], ["UTF8_STRING", "X-KDE-PASSWORDMANAGERHINT"],
    ])
    func anOfferedMarkerIsASecret(_ offered: [String]) {
        #expect(TargetPlan.decide(offered) == .secret)
    }

    @Test func aDroppedTypeIsNotRead() {
        let offered = ["UTF8_STRING", "text/html", "application/x-thing"]
        #expect(TargetPlan.decide(offered) { $0 == "text/html" } == .fetch(["UTF8_STRING", "application/x-thing"]))
        #expect(TargetPlan.decide(["text/html"]) { $0 == "text/html" } == .nothing)
    }

    // MARK: - Chromium's web custom data

    /// The bytes Chromium 156 put in `chromium/x-web-custom-data` for a page that set the hint itself.
    static let recordedCustomData: Data = {
        func utf16(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        var bytes: [UInt8] = [0x4C, 0, 0, 0, 1, 0, 0, 0, 25, 0, 0, 0]
        bytes += utf16("x-kde-passwordmanagerhint")
        bytes += [0, 0, 6, 0, 0, 0]
        bytes += utf16("secret")
        return Data(bytes)
    }()

    @Test func webCustomDataIsReadAsChromiumWritesIt() throws {
        let entries = try #require(WebCustomData.entries(in: Self.recordedCustomData))
        #expect(entries.map { $0.type } == ["x-kde-passwordmanagerhint"])
        #expect(entries.map { $0.value } == ["secret"])
        #expect(ConcealedMarkers.isConcealed(webCustomData: Self.recordedCustomData))
        #expect(WebCustomData.encode([("x-kde-passwordmanagerhint", "secret")]) == Self.recordedCustomData)
    }

    @Test func webCustomDataWithoutAMarkerIsNotASecret() {
        let data = WebCustomData.encode([("application/x-my-app", "{\"id\":1}"), ("text/x-note", "odd")])
        #expect(WebCustomData.entries(in: data)?.count == 2)
        #expect(!ConcealedMarkers.isConcealed(webCustomData: data))
    }

    @Test func damagedWebCustomDataIsASecretWhenItMentionsAMarker() {
        var damaged = Self.recordedCustomData
        damaged[4] = 0xFF  // an impossible count
        #expect(WebCustomData.entries(in: damaged) == nil)
        #expect(ConcealedMarkers.isConcealed(webCustomData: damaged), "fail closed")
        #expect(!ConcealedMarkers.isConcealed(webCustomData: Data([1, 2, 3])))
    }

    // MARK: - Firefox's custom clipdata

    /// The bytes Firefox ESR put in `application/x-moz-custom-clipdata` for a page whose copy handler set
    /// `x-kde-passwordManagerHint` to `secret` (read with xclip under Xvfb).
    static let recordedMozCustomClipData: Data = {
        func utf16(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        var bytes: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 0x32]
        bytes += utf16("x-kde-passwordmanagerhint")
        bytes += [0, 0, 0, 0x0C]
        bytes += utf16("secret")
        bytes += [0, 0, 0, 0]
        return Data(bytes)
    }()

    @Test func mozCustomClipDataIsReadAsFirefoxWritesIt() throws {
        let data = Self.recordedMozCustomClipData
        let entries = try #require(MozCustomClipData.entries(in: data))
        #expect(entries.map { $0.type } == ["x-kde-passwordmanagerhint"])
        #expect(entries.map { $0.value } == ["secret"])
        #expect(ConcealedMarkers.isConcealed(customData: data, container: "application/x-moz-custom-clipdata"))
        #expect(MozCustomClipData.encode([("x-kde-passwordmanagerhint", "secret")]) == data)
        // Read as Chromium's format it parses as nothing, yet it names a marker: still a secret (fail closed).
        #expect(ConcealedMarkers.isConcealed(customData: data, container: ConcealedMarkers.webCustomDataType))
    }

    @Test func mozCustomClipDataWithoutAMarkerIsNotASecret() {
        let data = MozCustomClipData.encode([("application/x-my-app", "{\"id\":1}"), ("text/x-note", "odd")])
        #expect(MozCustomClipData.entries(in: data)?.count == 2)
        #expect(!ConcealedMarkers.isConcealed(customData: data, container: "application/x-moz-custom-clipdata"))
    }

    @Test func damagedMozCustomClipDataIsASecretWhenItMentionsAMarker() {
        var damaged = Self.recordedMozCustomClipData
        damaged[7] = 0xFF  // a type name longer than the data
        #expect(MozCustomClipData.entries(in: damaged) == nil)
        #expect(ConcealedMarkers.isConcealed(customData: damaged, container: "application/x-moz-custom-clipdata"))
        let truncated = Self.recordedMozCustomClipData.prefix(40)
        #expect(MozCustomClipData.entries(in: truncated) == nil)
        #expect(!ConcealedMarkers.isConcealed(customData: truncated, container: "application/x-moz-custom-clipdata"),
            "only part of the name: nothing to find")
        #expect(ConcealedMarkers.isConcealed(customData: Data("X-KDE-PasswordManagerHint".utf8), container: "application/x-moz-custom-clipdata"))
    }

    @Test func containersAreFetchedAndRecognizedInAnyCase() {
        #expect(ConcealedMarkers.isCustomDataContainer("Application/X-Moz-Custom-Clipdata"))
        #expect(ConcealedMarkers.isCustomDataContainer("chromium/x-web-custom-data"))
        #expect(!ConcealedMarkers.isCustomDataContainer("text/html"))
        let offered = ["TARGETS", "UTF8_STRING", "text/html", "application/x-moz-custom-clipdata"]
        guard case .fetch(let types) = TargetPlan.decide(offered) else {
            Issue.record("nothing fetched of \(offered)")
            return
        }
        #expect(types.contains("application/x-moz-custom-clipdata"))
    }

    /// Reading LibreOffice Writer's link target inserts a bookmark into the user's document and marks it modified:
    /// it is never asked for, whatever its parameters or case.
    @Test func libreOfficesLinkIsNeverRead() {
        let offered = [
            "TARGETS", "application/x-openoffice-embed-source-xml;windows_formatname=\"Star Embed Source (XML)\"",
            "text/rtf", "text/html", "application/x-openoffice-link;windows_formatname=\"Link\"", "UTF8_STRING",
        ]
        guard case .fetch(let types) = TargetPlan.decide(offered) else {
            Issue.record("nothing fetched of \(offered)")
            return
        }
        #expect(!types.contains { $0.lowercased().hasPrefix("application/x-openoffice-link") }, "\(types)")
        #expect(types.contains("text/html") && types.contains("UTF8_STRING"), "\(types)")
        #expect(VolatileMarkers.isVolatile("Application/X-OpenOffice-Link ; windows_formatname=\"Link\""))
        #expect(!VolatileMarkers.isVolatile("application/x-openoffice-linked"))
    }

    // MARK: - WebKitGTK's custom pasteboard data

    /// The bytes Epiphany 43.1 (WebKitGTK 2.50) offered as `org.webkitgtk.WebKit.custom-pasteboard-data` for a page
    /// opened from a file whose copy handler set `x-kde-passwordManagerHint` to `secret` and `text/plain` (read with
    /// xclip under Xvfb): the origin `null:<uuid>`, then `text/plain` → null and the hint → `secret`.
    static let recordedWebKitCustomData = Data(
        [
            0x01, 0x00, 0x00, 0x00, 0x29, 0x00, 0x00, 0x00, 0x01, 0x6E, 0x75, 0x6C, 0x6C, 0x3A, 0x36, 0x31,
            0x38, 0x36, 0x31, 0x64, 0x39, 0x64, 0x2D, 0x61, 0x34, 0x62, 0x37, 0x2D, 0x34, 0x34, 0x62, 0x33,
            0x2D, 0x38, 0x31, 0x62, 0x39, 0x2D, 0x34, 0x66, 0x36, 0x66, 0x66, 0x66, 0x61, 0x64, 0x34, 0x62,
            0x66, 0x34, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x01, 0x74,
            0x65, 0x78, 0x74, 0x2F, 0x70, 0x6C, 0x61, 0x69, 0x6E, 0xFF, 0xFF, 0xFF, 0xFF, 0x19, 0x00, 0x00,
            0x00, 0x01, 0x78, 0x2D, 0x6B, 0x64, 0x65, 0x2D, 0x70, 0x61, 0x73, 0x73, 0x77, 0x6F, 0x72, 0x64,
            0x6D, 0x61, 0x6E, 0x61, 0x67, 0x65, 0x72, 0x68, 0x69, 0x6E, 0x74, 0x06, 0x00, 0x00, 0x00, 0x01,
            0x73, 0x65, 0x63, 0x72, 0x65, 0x74, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19, 0x00,
            0x00, 0x00, 0x01, 0x78, 0x2D, 0x6B, 0x64, 0x65, 0x2D, 0x70, 0x61, 0x73, 0x73, 0x77, 0x6F, 0x72,
            0x64, 0x6D, 0x61, 0x6E, 0x61, 0x67, 0x65, 0x72, 0x68, 0x69, 0x6E, 0x74, 0x0A, 0x00, 0x00, 0x00,
            0x01, 0x74, 0x65, 0x78, 0x74, 0x2F, 0x70, 0x6C, 0x61, 0x69, 0x6E,
        ] as [UInt8])

    @Test func webKitCustomDataIsReadAsWebKitGTKWritesIt() throws {
        let data = Self.recordedWebKitCustomData
        let entries = try #require(WebKitCustomData.entries(in: data))
        #expect(entries.map(\.type) == ["text/plain", "x-kde-passwordmanagerhint"])
        #expect(entries.map(\.value) == [nil, "secret"])
        #expect(ConcealedMarkers.isConcealed(customData: data, container: "org.webkitgtk.WebKit.custom-pasteboard-data"))
        #expect(ConcealedMarkers.isCustomDataContainer("org.webkitgtk.WebKit.custom-pasteboard-data"))
        let origin = "null:61861d9d-a4b7-44b3-81b9-4f6fffad4bf4"
        #expect(WebKitCustomData.encode([("text/plain", nil), ("x-kde-passwordmanagerhint", "secret")], origin: origin)
            .count == data.count)
    }

    @Test func webKitCustomDataInUTF16WithoutAMarkerIsNotASecret() throws {
        let data = WebKitCustomData.encode([("application/x-note", "s\u{20AC}cret"), ("text/x-id", "7")], origin: "https://vault")
        let entries = try #require(WebKitCustomData.entries(in: data))
        #expect(entries.map(\.value) == ["s\u{20AC}cret", "7"])
        #expect(!ConcealedMarkers.isConcealed(customData: data, container: "org.webkitgtk.WebKit.custom-pasteboard-data"))
        var damaged = data
        damaged[0] = 9  // an unknown version
        #expect(WebKitCustomData.entries(in: damaged) == nil)
        var truncated = Self.recordedWebKitCustomData.prefix(120)
        #expect(WebKitCustomData.entries(in: truncated) == nil)
        #expect(ConcealedMarkers.isConcealed(customData: truncated, container: "org.webkitgtk.WebKit.custom-pasteboard-data"),
            "the marker's name is in it: fail closed")
        truncated = truncated.prefix(60)
        #expect(!ConcealedMarkers.isConcealed(customData: truncated, container: "org.webkitgtk.WebKit.custom-pasteboard-data"))
    }

    @Test func webKitsContainerIsFetched() {
        let offered = ["TARGETS", "UTF8_STRING", "text/plain", "org.webkitgtk.WebKit.custom-pasteboard-data"]
        guard case .fetch(let types) = TargetPlan.decide(offered) else {
            Issue.record("nothing fetched of \(offered)")
            return
        }
        #expect(types.contains("org.webkitgtk.WebKit.custom-pasteboard-data"), "\(types)")
    }
}
