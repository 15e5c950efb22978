import Foundation
import PasteboardKit
import Testing

@Suite struct PasteboardTransferTests {
    typealias Profile = TransferFixtures.Profile

    let board: Pasteboard
    let ada = Profile(name: "Ada Lovelace", email: "ada@example.com")
    let grace = Profile(name: "Grace Hopper", email: "grace@example.com")

    init() throws {
        board = try #require(
            try Pasteboard(name: Pasteboard.Name("transfer-tests"), create: true, server: InMemoryPasteboardServer()))
    }

    @Test func writeThenReadACustomType() async throws {
        try await board.write(ada)

        #expect(try board.types == [TransferFixtures.profileType, .utf8PlainText])
        #expect(try await board.read(Profile.self) == ada)
        #expect(try await board.read(String.self) == "Ada Lovelace")
    }

    @Test func canReadReflectsTheFirstItem() async throws {
        #expect(try !board.canRead(Profile.self))

        try await board.write(ada)
        #expect(try board.canRead(Profile.self))
        #expect(try board.canRead(String.self))
        #expect(try !board.canRead(PasteboardImage.self))

        try board.setString("just text")
        #expect(try !board.canRead(Profile.self))
        #expect(try board.canRead(String.self))
    }

    @Test func writingSeveralValuesMakesOneItemEach() async throws {
        try await board.write([ada, grace])

        let items = try board.items
        #expect(items.count == 2)
        #expect(try await items[1].value(as: Profile.self) == grace)
        #expect(try await board.read(Profile.self) == ada)
    }

    @Test func writingReplacesTheContentsAndCountsAsOneChange() async throws {
        try board.setString("before")
        let before = try board.changeCount

        try await board.write(grace)

        #expect(try board.changeCount == before + 1)
        #expect(try board.items.count == 1)
        #expect(try await board.read(Profile.self) == grace)
    }

    @Test func failedExportLeavesThePasteboardUntouched() async throws {
        try board.setString("keep me")
        let before = try board.changeCount

        await #expect(throws: PasteboardError.self) {
            try await board.write([TransferFixtures.Count(value: 1)])
        }

        #expect(try board.changeCount == before)
        #expect(try board.string == "keep me")
    }

    @Test func readingAnEmptyPasteboardGivesNil() async throws {
        #expect(try await board.read(Profile.self) == nil)
        #expect(try await board.read(String.self) == nil)
    }

    @Test func urlsAndImagesRoundTripThroughThePasteboard() async throws {
        let link = try #require(URL(string: "https://www.swift.org"))
        try await board.write(link)
        #expect(try await board.read(URL.self) == link)
        #expect(try board.string == "https://www.swift.org")

        let image = try #require(PasteboardImage(data: PasteboardImageTests.png(width: 8, height: 9)))
        try await board.write(image)
        #expect(try await board.read(PasteboardImage.self) == image)
        #expect(try !board.canRead(URL.self))
    }
}

/// Callers on the main actor, with a type that is not `Sendable`: this must compile under Swift 6 and work.
@Suite @MainActor struct MainActorTransferTests {
    @Test func mainActorCodeWritesAndReadsANonSendableType() async throws {
        let board = try #require(
            try Pasteboard(name: Pasteboard.Name("main-actor"), create: true, server: InMemoryPasteboardServer()))
        let draft = Draft(text: "unsent")

        try await board.write(draft)
        let pasted = try await board.read(Draft.self)

        #expect(pasted?.text == "unsent")
        #expect(pasted !== draft, "reading makes a new value")
        #expect(try await board.read(String.self) == "unsent")
    }
}

/// A reference type that is deliberately not `Sendable`.
private final class Draft: Transferable {
    var text: String

    init(text: String) { self.text = text }

    static var transferRepresentation: some TransferRepresentation<Draft> {
        ProxyRepresentation { draft in
            draft.text
        } importing: { text in
            Draft(text: text)
        }
    }
}
