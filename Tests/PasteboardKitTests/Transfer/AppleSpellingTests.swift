import Foundation
import PasteboardKit
import Testing

/// Transferable code spelled as for Apple's frameworks: opaque representations without a generic argument,
/// and `SentTransferredFile`/`ReceivedTransferredFile` as Apple spells them.
@Suite struct AppleSpellingTests {
    let scratch: TransferScratchDirectory

    init() throws {
        scratch = try TransferScratchDirectory()
    }

    @Test func opaqueRepresentationWithoutAGenericArgumentConforms() async throws {
        let contact = Contact(name: "Ada", phone: "555-0100")
        let item = try await PasteboardItem(exporting: contact)

        #expect(item.types == [Contact.contentType, .utf8PlainText])
        #expect(try await item.value(as: Contact.self) == contact)
        #expect(try await item.value(as: String.self) == "Ada")
    }

    @Test func representationFromAProtocolExtensionConforms() async throws {
        let setting = Setting(key: "theme", value: "dark")
        let item = try await PasteboardItem(exporting: setting)

        #expect(item.types == [.json])
        #expect(try await item.value(as: Setting.self) == setting)
    }

    @Test func bothSpellingsGiveTheSameEntries() {
        #expect(Pasteboard.exportedContentTypes(for: Contact.self) == [Contact.contentType, .utf8PlainText])
        #expect(Pasteboard.importedContentTypes(for: Contact.self) == [Contact.contentType])
    }

    // MARK: - Files

    @Test func sentTransferredFileSendsACopyByDefault() {
        let url = scratch.url.appendingPathComponent("clip.mp4")

        let sent = SentTransferredFile(url)
        let shared = SentTransferredFile(url, allowAccessingOriginalFile: true)

        #expect(sent.file == url)
        #expect(!sent.allowAccessingOriginalFile)
        #expect(shared.allowAccessingOriginalFile)
    }

    @Test func fileExportedWithTheDefaultIsNotOfferedInPlace() async throws {
        let file = try scratch.file("clip.mp4", containing: Data("frames".utf8))

        let exported = try await ResolvedTransferRepresentation<Clip>().export(Clip(file: file))

        guard case .file(let url, let allowsAccessingOriginal)? = exported.first?.payload else {
            Issue.record("expected a file payload")
            return
        }
        #expect(url == file)
        #expect(!allowsAccessingOriginal)
    }

    @Test func importerInTheSessionsShapeCopiesTheReceivedFile() async throws {
        let file = try scratch.file("clip.mp4", containing: Data("frames".utf8))
        let item = try await PasteboardItem(exporting: Clip(file: file))

        let pasted = try await Clip.$copyDirectory.withValue(scratch.url) {
            try #require(try await item.value(as: Clip.self))
        }

        #expect(pasted.file != file)
        #expect(pasted.file.deletingLastPathComponent().standardizedFileURL == scratch.url.standardizedFileURL)
        #expect(try Data(contentsOf: pasted.file) == Data("frames".utf8))
        let received = try #require(pasted.received)
        #expect(!received.isOriginalFile)
        #expect(received.file.pathExtension == "mp4", "named for the content type when no name is suggested")
    }

    @Test func importerReceivesTheOriginalOnlyWhenTheSenderAllowsIt() async throws {
        let file = try scratch.file("shared.mp4", containing: Data("frames".utf8))
        let resolved = ResolvedTransferRepresentation<Clip>()
        let match = try #require(resolved.importMatch(among: [.mpeg4Movie]))

        let original = try await Clip.$copyDirectory.withValue(scratch.url) {
            try await resolved.importValue(
                entryIndex: match.entryIndex, payload: .file(file, allowsAccessingOriginal: true))
        }
        let copy = try await Clip.$copyDirectory.withValue(scratch.url) {
            try await resolved.importValue(
                entryIndex: match.entryIndex, payload: .file(file, allowsAccessingOriginal: false))
        }

        #expect(original.received == ReceivedTransferredFile(file, isOriginalFile: true))
        #expect(copy.received?.isOriginalFile == false)
        #expect(copy.received?.file != file)
    }
}

// MARK: - Fixtures

/// Spelled as on Apple's platforms: `some TransferRepresentation` without a generic argument.
private struct Contact: Codable, Transferable, Equatable {
    var name: String
    var phone: String

    static let contentType = UTType(exportedAs: "com.example.tests.contact", conformingTo: .json)

    static var transferRepresentation: some TransferRepresentation {
        CodableRepresentation(contentType: contentType)
        ProxyRepresentation(exporting: \.name)
    }
}

/// Every conforming type gets its representation from the protocol's extension.
private protocol JSONTransferable: Codable, Transferable {}

extension JSONTransferable {
    static var transferRepresentation: some TransferRepresentation {
        CodableRepresentation(for: Self.self, contentType: .json)
    }
}

private struct Setting: JSONTransferable, Equatable {
    var key: String
    var value: String
}

/// A movie in the shape of the WWDC22 session's `Video`: the importer copies the file it receives.
private struct Clip: Transferable {
    var file: URL
    var received: ReceivedTransferredFile?

    @TaskLocal static var copyDirectory: URL?

    static var transferRepresentation: some TransferRepresentation {
        FileRepresentation(contentType: .mpeg4Movie) {
            SentTransferredFile($0.file)
        } importing: { received in
            let directory = Clip.copyDirectory ?? FileManager.default.temporaryDirectory
            let copy = directory.appendingPathComponent("\(UUID().uuidString).mp4")
            try FileManager.default.copyItem(at: received.file, to: copy)
            return Self.init(file: copy, received: received)
        }
    }
}
