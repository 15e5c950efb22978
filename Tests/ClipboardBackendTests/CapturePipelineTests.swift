import ClipboardBackend
import Foundation
import PasteboardModel
import Testing

/// The capture pipeline's decisions, driven through the in-memory backend and its clock: what is fetched of an
/// offer, in which order, and what reaches the sink. The same `CaptureRun` decides for X11 and Wayland.
@Suite struct CapturePipelineTests {
    let backend = InMemoryBackend(now: Date(timeIntervalSince1970: 1_000_000))
    let sink = RecordingSink()
    let pipeline: CapturePipeline

    init() {
        pipeline = CapturePipeline(backend: backend, sink: sink, clock: { [backend] in backend.now })
        pipeline.start([.clipboard, .primary])
    }

    static let webCustomData = ContentType(mimeType: "chromium/x-web-custom-data")!
    static let mozCustomClipData = ContentType(mimeType: "application/x-moz-custom-clipdata")!

    func page(_ text: String, container: ContentType, marked: Bool) -> PasteboardItem {
        var item = PasteboardItem(string: text)
        item.setData(Data("<b>\(text)</b>".utf8), forType: .html)
        let entries = [(type: marked ? "x-kde-passwordManagerHint" : "application/x-my-app", value: "secret")]
        let data =
            container == Self.webCustomData ? WebCustomData.encode(entries) : MozCustomClipData.encode(entries)
        item.setData(data, forType: container)
        return item
    }

    // MARK: - Secrets

    @Test(arguments: [webCustomData, mozCustomClipData])
    func aMarkerInsideABrowsersContainerStopsEveryOtherRead(container: ContentType) throws {
        backend.copy(page("hunter2", container: container, marked: true))
        #expect(backend.fetched == [container.preferredMIMEType], "the container first, alone, and nothing after it")
        #expect(sink.offers.isEmpty && sink.skips == [.secret])
    }

    @Test func aHarmlessContainerIsReadFirstThenTheRest() throws {
        backend.copy(page("a page's text", container: Self.webCustomData, marked: false))
        #expect(backend.fetched.first == "chromium/x-web-custom-data")
        #expect(backend.fetched.contains("UTF8_STRING") && backend.fetched.contains("text/html"))
        let offer = try #require(sink.offers.first)
        #expect(offer.item.string == "a page's text")
        #expect(offer.item.data(forType: .html) == Data("<b>a page's text</b>".utf8))
        #expect(offer.item.types.first == .utf8PlainText, "kept in the plan's order, not the order read")
    }

    @Test func aMarkerAmongTheOfferedTypesReadsNothing() {
        backend.copy(PasteboardItem(string: "hunter2"), extraTypes: ["x-kde-passwordManagerHint"])
        #expect(backend.fetched.isEmpty)
        #expect(sink.skips == [.secret])
    }

    @Test func theSinksRulesAreAskedBeforeAnythingIsRead() {
        sink.refusedApplication = "KeePassXC"
        backend.copy(PasteboardItem(string: "password"), source: SourceApplication(name: "KeePassXC"))
        #expect(backend.fetched.isEmpty)
        #expect(sink.skips == [.ignored("KeePassXC is ignored")])
    }

    // MARK: - Types never read

    @Test func volatileTypesAreNeverFetched() throws {
        var item = PasteboardItem(string: "copied")
        for name in ["application/x-copyq-owner", "application/x-openoffice-link", "chromium/x-internal-source-rfh-token"] {
            item.setData(Data("token".utf8), forType: ContentType(mimeType: name)!)
        }
        backend.copy(item)
        #expect(!backend.fetched.contains { VolatileMarkers.isVolatile($0) }, "\(backend.fetched)")
        #expect(try #require(sink.offers.first).item.types == [.utf8PlainText])

        // Not even for a client that asks for one by name: reading it changes LibreOffice's document.
        let read = backend.read(.clipboard, timeout: 1) { _ in .fetch(["application/x-openoffice-link"]) }
        guard case .failed(.empty) = read else {
            Issue.record("expected nothing, got \(read)")
            return
        }
        #expect(backend.fetched.filter { $0 == "application/x-openoffice-link" }.isEmpty)
    }

    @Test func aDropRuleLeavesATypeUnreadAndAnOfferOfNothingElseIsIgnored() throws {
        sink.droppedTypes = ["text/html"]
        var item = PasteboardItem(string: "plain")
        item.setData(Data("<b>plain</b>".utf8), forType: .html)
        backend.copy(item)
        #expect(!backend.fetched.contains("text/html"))
        #expect(try #require(sink.offers.first).item.types == [.utf8PlainText])
        backend.copy(PasteboardItem(data: Data("<i>only</i>".utf8), type: .html))
        #expect(sink.skips == [.ignored("every type it offered is dropped by a drop-type rule")])
    }

    // MARK: - Stalls, with the clock

    @Test func aStalledTypeIsDroppedAndTheRestKept() throws {
        backend.stalling = ["text/html"]
        var item = PasteboardItem(string: "kept")
        item.setData(Data("<b>never sent</b>".utf8), forType: .html)
        backend.copy(item)
        #expect(sink.offers.isEmpty, "still waiting for text/html")
        backend.advance(by: backend.limits.stallTimeout - 0.1)
        #expect(sink.offers.isEmpty && sink.skips.isEmpty)
        backend.advance(by: 0.1)
        let offer = try #require(sink.offers.first)
        #expect(offer.item.types == [.utf8PlainText] && offer.item.string == "kept")
    }

    @Test func aCopyWhoseOnlyTypeStallsTimesOut() {
        backend.stalling = ["image/png"]
        backend.copy(PasteboardItem(data: Data([0x89, 0x50, 0x4E, 0x47]), type: .png))
        #expect(backend.fetched == ["image/png"])
        backend.advance(by: backend.limits.stallTimeout)
        #expect(sink.offers.isEmpty && sink.skips == [.timedOut("image/png")])
    }

    @Test func aStalledContainerEndsTheCapture() {
        backend.stalling = ["chromium/x-web-custom-data"]
        backend.copy(page("maybe a secret", container: Self.webCustomData, marked: false))
        backend.advance(by: backend.limits.stallTimeout)
        #expect(sink.offers.isEmpty && sink.skips == [.timedOut("chromium/x-web-custom-data")])
        #expect(backend.fetched == ["chromium/x-web-custom-data"])
    }

    // MARK: - Newer copies, owners that go

    @Test func aReadANewerCopyReplacedIsSupersededWhenTheNewerEndsFirst() throws {
        backend.stalling = ["text/html"]
        var slow = PasteboardItem(string: "older")
        slow.setData(Data("<b>older</b>".utf8), forType: .html)
        backend.copy(slow)
        backend.stalling = []
        backend.copy(PasteboardItem(string: "newer"))
        backend.advance(by: backend.limits.stallTimeout)
        #expect(sink.offers.map(\.item.string) == ["newer"])
        #expect(sink.skips == [.superseded])
    }

    @Test func anOwnerGoneWhileBeingReadIsReportedOnceTheReadEnds() {
        backend.stalling = ["text/html"]
        var item = PasteboardItem(string: "last words")
        item.setData(Data("<b>last words</b>".utf8), forType: .html)
        backend.copy(item)
        backend.ownerExits(.clipboard, clientExited: true)
        #expect(sink.log == ["changed"], "not yet: the take-over would serve the previous item")
        backend.advance(by: backend.limits.stallTimeout)
        #expect(sink.log == ["changed", "captured last words", "gone"])
    }

    // MARK: - Silent changes

    @Test func aSelectionChangedSilentlyIsReadAgainAndOnlyChangesArePassedOn() throws {
        backend.ownersChangeSilently = true
        backend.copy(PasteboardItem(string: "a"), to: .primary)
        let first = try #require(pipeline.nextDeadline)
        #expect(first == backend.now.addingTimeInterval(0.15))
        backend.changeSilently(PasteboardItem(string: "ab"), in: .primary)
        backend.advance(by: 0.15)
        pipeline.processTimeouts(now: backend.now)
        #expect(sink.offers.map(\.item.string) == ["a", "ab"])
        // Unchanged re-reads wait twice as long each time, and stop.
        var rereads = 0
        while let next = pipeline.nextDeadline, rereads < 10 {
            backend.advance(by: next.timeIntervalSince(backend.now))
            pipeline.processTimeouts(now: backend.now)
            rereads += 1
        }
        #expect(rereads == 5)
        #expect(sink.offers.count == 2)
    }

    @Test func aSelectionWhoseOwnerAnnouncesEveryChangeIsNotReadAgain() {
        backend.copy(PasteboardItem(string: "a"), to: .primary)
        #expect(pipeline.nextDeadline == nil)
    }
}

/// What the pipeline hands its sink, with rules a test sets.
final class RecordingSink: CaptureSink {
    var offers: [CapturedOffer] = []
    var skips: [CaptureSkip] = []
    var log: [String] = []
    var refusedApplication: String?
    var droppedTypes: Set<String> = []

    func admit(_ offer: OfferAnnouncement) -> CaptureSkip? {
        guard let name = offer.source.name, name == refusedApplication else { return nil }
        return .ignored("\(name) is ignored")
    }

    func drops(_ typeName: String, of offer: OfferAnnouncement) -> Bool { droppedTypes.contains(typeName) }

    func captured(_ offer: CapturedOffer) {
        offers.append(offer)
        log.append("captured \(offer.item.string ?? "?")")
    }

    func skipped(_ selection: Selection, _ reason: CaptureSkip) {
        skips.append(reason)
        log.append("skipped")
    }

    func ownerChanged(_ selection: Selection, time: UInt) { log.append("changed") }
    func ownerGone(_ selection: Selection, clientExited: Bool) { log.append("gone") }
}
