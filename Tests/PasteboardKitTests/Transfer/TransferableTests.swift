import Foundation
import PasteboardKit
import Testing

@Suite struct TransferableTests {
    typealias Profile = TransferFixtures.Profile
    typealias Note = TransferFixtures.Note
    typealias Greeting = TransferFixtures.Greeting

    let ada = Profile(name: "Ada Lovelace", email: "ada@example.com")

    @Test func exportYieldsCustomTypeThenProxyTextInOrder() async throws {
        let item = try await PasteboardItem(exporting: ada)

        #expect(item.types == [TransferFixtures.profileType, .utf8PlainText])
        let json = try #require(item.data(forType: TransferFixtures.profileType))
        #expect(try JSONDecoder().decode(Profile.self, from: json) == ada)
        #expect(item.data(forType: .utf8PlainText) == Data("Ada Lovelace".utf8))
    }

    @Test func readingBackAsTheTypeGivesTheWholeValue() async throws {
        let item = try await PasteboardItem(exporting: ada)

        #expect(try await item.value(as: Profile.self) == ada)
    }

    @Test func readingAsTheProxyTypeGivesTheProxy() async throws {
        let item = try await PasteboardItem(exporting: ada)

        #expect(try await item.value(as: String.self) == "Ada Lovelace")
    }

    @Test func textOnlyItemImportsAsStringButNotAsTheCustomType() async throws {
        let item = PasteboardItem(string: "Ada Lovelace")

        #expect(try await item.value(as: String.self) == "Ada Lovelace")
        #expect(try await item.value(as: Profile.self) == nil)
        #expect(!item.canImport(Profile.self))
    }

    @Test func customTypeIsReadFromARepresentationThatConformsToIt() async throws {
        let subtype = ContentType(exportedAs: "com.example.profile.v2", conformingTo: [TransferFixtures.profileType])
        let item = PasteboardItem(data: try JSONEncoder().encode(ada), type: subtype)

        #expect(try await item.value(as: Profile.self) == ada)
    }

    @Test func exactTypeWinsOverAnEarlierConformingOne() async throws {
        // String imports `.plainText`; Markdown conforms to it but comes first, plain text matches exactly.
        var item = PasteboardItem()
        item.setData(Data("# markdown".utf8), forType: .markdown)
        item.setData(Data("plain".utf8), forType: .plainText)

        #expect(try await item.value(as: String.self) == "plain")
    }

    @Test func earlierImporterWinsOverAnEarlierRepresentation() async throws {
        // Both are text; String's first importer wants UTF-8 text, which comes second in the item.
        var item = PasteboardItem()
        item.setData(Data("<b>markup</b>".utf8), forType: .html)
        item.setData(Data("plain".utf8), forType: .utf8PlainText)

        #expect(try await item.value(as: String.self) == "plain")
    }

    @Test func falseExportingConditionSkipsTheRepresentation() async throws {
        let plain = try await PasteboardItem(exporting: Note(text: "hi", html: nil))
        let rich = try await PasteboardItem(exporting: Note(text: "hi", html: "<i>hi</i>"))

        #expect(plain.types == [.utf8PlainText])
        #expect(rich.types == [.html, .utf8PlainText])
        #expect(rich.data(forType: .html) == Data("<i>hi</i>".utf8))
    }

    @Test func exportingConditionDoesNotAffectImporting() async throws {
        let item = PasteboardItem(string: "pasted")

        #expect(try await item.value(as: Note.self) == Note(text: "pasted", html: nil))
    }

    @Test func firstRepresentationOfADuplicateTypeWinsWhenItsConditionHolds() async throws {
        let formal = try await PasteboardItem(exporting: Greeting(isFormal: true))
        let casual = try await PasteboardItem(exporting: Greeting(isFormal: false))

        #expect(formal.types == [.utf8PlainText, .html])
        #expect(formal.string == "Good day")
        #expect(casual.types == [.utf8PlainText, .html])
        #expect(casual.string == "Hi")
    }

    @Test func corruptCustomTypeThrowsAConversionErrorNamingTheType() async throws {
        let item = PasteboardItem(data: Data(#"{"name": 42}"#.utf8), type: TransferFixtures.profileType)

        let error = await #expect(throws: PasteboardError.self) { try await item.value(as: Profile.self) }

        #expect(error?.code == .conversion)
        #expect(error?.message.contains("Profile") == true)
        #expect(error?.message.contains("com.example.profile") == true)
    }

    @Test func contentTypeListsFollowDeclarationOrder() {
        #expect(Pasteboard.exportedContentTypes(for: Profile.self) == [TransferFixtures.profileType, .utf8PlainText])
        #expect(Pasteboard.importedContentTypes(for: Profile.self) == [TransferFixtures.profileType])
        #expect(
            Pasteboard.importedContentTypes(for: Note.self) == [.utf8PlainText, .utf16PlainText, .plainText, .text])
        #expect(Pasteboard.exportedContentTypes(for: Greeting.self) == [.utf8PlainText, .html])
    }

    @Test func customCompositeRepresentationFlattensItsBody() async throws {
        let item = try await PasteboardItem(exporting: Badge(label: "VIP"))

        #expect(item.types == [.json, .utf8PlainText])
        #expect(try await item.value(as: Badge.self) == Badge(label: "VIP"))
    }

    @Test func customCoderIsUsed() async throws {
        let item = try await PasteboardItem(exporting: Setting(key: "theme", value: "dark"))
        let data = try #require(item.data(forType: Setting.contentType))

        #expect(try PropertyListDecoder().decode(Setting.self, from: data) == Setting(key: "theme", value: "dark"))
        #expect(try await item.value(as: Setting.self) == Setting(key: "theme", value: "dark"))
    }

    @Test func filesStayFilesUntilTheItemIsBuilt() async throws {
        let scratch = try TransferScratchDirectory()
        let file = try scratch.file("clip.mov", containing: Data("movie".utf8))
        let video = TransferFixtures.Video(url: file)

        let exported = try await ResolvedTransferRepresentation<TransferFixtures.Video>().export(video)

        #expect(exported.map(\.contentType) == [.quickTimeMovie])
        #expect(exported.first?.suggestedFileName == "video.mov")
        guard case .file(let url, let allowsAccessingOriginal)? = exported.first?.payload else {
            Issue.record("expected a file payload")
            return
        }
        #expect(url == file)
        #expect(allowsAccessingOriginal)

        let item = try await PasteboardItem(exporting: video)
        #expect(item.types == [.quickTimeMovie])
        #expect(item.data(forType: .quickTimeMovie) == Data("movie".utf8))
    }

    @Test func suggestedFileNameClosureNamesEachExport() async throws {
        let exported = try await ResolvedTransferRepresentation<Memo>().export(Memo(title: "Minutes"))

        #expect(exported.map(\.suggestedFileName) == ["Minutes.txt"])
    }
}

// MARK: - Fixtures

/// A representation of its own, made of library representations through `body`.
private struct BadgeRepresentation: TransferRepresentation {
    var body: some TransferRepresentation<Badge> {
        CodableRepresentation(contentType: .json)
        ProxyRepresentation(exporting: \.label)
    }
}

private struct Badge: Codable, Transferable, Equatable {
    var label: String

    static var transferRepresentation: some TransferRepresentation<Badge> {
        BadgeRepresentation()
    }
}

private struct Setting: Codable, Transferable, Equatable {
    var key: String
    var value: String

    static let contentType = ContentType(exportedAs: "com.example.setting", conformingTo: [.xml])

    static var transferRepresentation: some TransferRepresentation<Setting> {
        CodableRepresentation(contentType: contentType, encoder: PropertyListEncoder(), decoder: PropertyListDecoder())
    }
}

private struct Memo: Transferable {
    var title: String

    static var transferRepresentation: some TransferRepresentation<Memo> {
        ProxyRepresentation(exporting: \.title)
            .suggestedFileName { "\($0.title).txt" }
    }
}
