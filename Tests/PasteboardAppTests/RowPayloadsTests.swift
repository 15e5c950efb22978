import Foundation
import Testing

@testable import PasteboardApp
@testable import PasteboardHistory

/// An item listed again unchanged keeps its row object, so GTK keeps the row widget showing it.
@MainActor @Suite struct RowPayloadsTests {
    static func item(_ id: Int64, pinned: Bool = false, preview: String = "text") -> HistoryItem {
        HistoryItem(
            id: id, kind: .text, preview: preview, size: 4, created: Date(timeIntervalSince1970: 1_700_000_000),
            lastCopied: Date(timeIntervalSince1970: 1_700_000_000), copyCount: 1, isPinned: pinned, source: nil,
            selection: nil, expiresAt: nil, types: [.utf8PlainText])
    }

    @Test func theSameItemGetsTheSamePayloadAndAChangedOneANewOne() {
        let payloads = RowPayloads()
        let first = payloads.payload(for: Self.item(1))
        #expect(payloads.payload(for: Self.item(1)) === first)
        #expect(payloads.payload(for: Self.item(2)) !== first)
        // Pinned since: the row must show the mark, so it is a new payload (and GTK binds the row again).
        let pinned = payloads.payload(for: Self.item(1, pinned: true))
        #expect(pinned !== first)
        #expect(payloads.payload(for: Self.item(1, pinned: true)) === pinned)
    }

    @Test func onlyTheLastPayloadsAreKept() {
        let payloads = RowPayloads()
        let oldest = payloads.payload(for: Self.item(0))
        let newest = payloads.payload(for: Self.item(1))
        for id in 2...Int64(RowPayloads.limit) { _ = payloads.payload(for: Self.item(id)) }
        #expect(payloads.payload(for: Self.item(1)) === newest, "still among the last \(RowPayloads.limit)")
        #expect(payloads.payload(for: Self.item(0)) !== oldest, "pushed out by the newer ones")
    }
}
