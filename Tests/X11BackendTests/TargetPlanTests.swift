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
}
