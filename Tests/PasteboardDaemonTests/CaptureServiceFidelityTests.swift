import ClipboardBackend
import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing

@testable import PasteboardDaemon

/// What real applications do to the capture service, through the in-memory backend: secrets marked in ways that
/// cannot be read, volatile private markers, drop rules, and PRIMARY selections that meet CLIPBOARD copies.
@Suite struct CaptureServiceFidelityTests {
    let directory: URL
    let store: HistoryStore
    let backend = InMemoryBackend()
    let services = ServiceKeeper()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pb-fidelity-\(UUID().uuidString)")
        store = try HistoryStore(location: StoreLocation(directory: directory))
    }

    func service(_ configuration: String = "") throws -> CaptureService {
        let parsed = try Configuration.parse(configuration, path: "config")
        let service = CaptureService(
            store: store, rules: parsed.capture, backend: backend, log: { _ in }, broadcast: { _ in })
        service.start()
        services.all.append(service)
        return service
    }

    func previews() throws -> [String] { try store.items(limit: 100).map(\.preview) }

    // MARK: - PRIMARY meets CLIPBOARD

    /// The recipe: the same text copied, then selected, then the selection grown.
    @Test func aGrowingPrimarySelectionNeverReplacesTheClipboardItemItMatched() throws {
        _ = try service("primary = on\n")
        backend.copy(PasteboardItem(string: "meeting notes"), to: .clipboard)
        backend.copy(PasteboardItem(string: "meeting notes"), to: .primary)
        backend.copy(PasteboardItem(string: "meeting notes v2"), to: .primary)
        #expect(Set(try previews()) == ["meeting notes", "meeting notes v2"])
    }

    /// Selected, then copied with Ctrl+C (the item is the CLIPBOARD copy's now), then the selection grows.
    @Test func aPrimaryItemACopyMergedIntoIsNotReplacedEither() throws {
        _ = try service("primary = on\n")
        backend.copy(PasteboardItem(string: "draft"), to: .primary)
        backend.copy(PasteboardItem(string: "draft"), to: .clipboard)
        backend.copy(PasteboardItem(string: "draft two"), to: .primary)
        #expect(Set(try previews()) == ["draft", "draft two"])
    }

    @Test func aSelectionThatKeepsGrowingIsStillOneItem() throws {
        _ = try service("primary = on\n")
        backend.copy(PasteboardItem(string: "unrelated"), to: .clipboard)
        for text in ["m", "me", "meet", "meeting"] { backend.copy(PasteboardItem(string: text), to: .primary) }
        #expect(try previews() == ["meeting", "unrelated"])
    }

    // MARK: - Secrets

    /// GTK 4 lists the hint but cannot serve it: the offer alone is enough.
    @Test func aPasswordHintIsASecretWhateverItsValue() throws {
        let service = try service()
        backend.copy(PasteboardItem(string: "hunter2"), extraTypes: ["x-kde-passwordManagerHint"])
        #expect(try previews().isEmpty)
        let offer = OfferAnnouncement(
            selection: .clipboard, offeredTypes: ["UTF8_STRING", "x-kde-passwordManagerHint"], source: .init())
        #expect(service.admit(offer) == .secret)
    }

    /// A page's copy handler marked it: Chromium packs the hint into its web custom data.
    @Test func aMarkerInsideChromiumsWebCustomDataIsASecret() throws {
        _ = try service()
        var item = PasteboardItem(string: "hunter2")
        let customData = WebCustomData.encode([("x-kde-passwordmanagerhint", "secret")])
        item.setData(customData, forType: ContentType(mimeType: "chromium/x-web-custom-data")!)
        backend.copy(item)
        #expect(try previews().isEmpty)
        backend.ownerExits(.clipboard)
        #expect(!backend.owns(.clipboard), "the secret is not kept alive")

        var harmless = PasteboardItem(string: "a page's own type")
        harmless.setData(
            WebCustomData.encode([("application/x-my-app", "{}")]),
            forType: ContentType(mimeType: "chromium/x-web-custom-data")!)
        backend.copy(harmless)
        #expect(try previews() == ["a page's own type"])
    }

    // MARK: - Volatile markers and drop rules

    @Test func volatileMarkersAreNotStoredSoARepeatIsTheSameItem() throws {
        _ = try service()
        for token in ["<Server-1>/1", "<Server-1>/2", "<Server-1>/3"] {
            var item = PasteboardItem(string: "copied in CopyQ")
            item.setData(Data(token.utf8), forType: ContentType(mimeType: "application/x-copyq-owner")!)
            backend.copy(item)
        }
        let items = try store.items(limit: 10)
        #expect(items.count == 1)
        #expect(items.first?.types == [.utf8PlainText])
        #expect(items.first?.copyCount == 3)
    }

    @Test func dropTypeLeavesOutOneRepresentation() throws {
        let service = try service("drop-type = text/html\n")
        var item = PasteboardItem(string: "plain")
        item.setData(Data("<b>plain</b>".utf8), forType: .html)
        backend.copy(item)
        #expect(try store.items(limit: 10).first?.types == [.utf8PlainText])
        let offer = OfferAnnouncement(selection: .clipboard, offeredTypes: ["public.html"], source: .init())
        #expect(service.drops("public.html", of: offer))
        #expect(!service.drops("public.utf8-plain-text", of: offer))
        #expect(service.drops("chromium/x-internal-source-rfh-token", of: offer), "volatile markers are never read")

        backend.copy(PasteboardItem(data: Data("<i>only HTML</i>".utf8), type: .html))
        #expect(try store.items(limit: 10).count == 1, "a copy of nothing but dropped types is not recorded")
    }

    @Test func ignoreTypeJudgesWhatIsOfferedBeforeAnythingIsRead() throws {
        let service = try service("ignore-type = image/*\n")
        let offer = OfferAnnouncement(
            selection: .clipboard, offeredTypes: ["public.utf8-plain-text", "public.png"], source: .init())
        #expect(service.admit(offer) == .ignored("type public.png is ignored"))
    }
}
