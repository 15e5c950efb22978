import Foundation
import PasteboardKit
import Testing

@Suite struct FileRepresentationTests {
    typealias Video = TransferFixtures.Video

    let scratch: TransferScratchDirectory

    init() throws {
        scratch = try TransferScratchDirectory()
    }

    /// 5 MB of bytes that differ from chunk to chunk, so a misplaced chunk is caught.
    static let movieBytes = Data((0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) })

    @Test func largeFileRoundTripsAndTheImporterCopiesItUnderAFreeName() async throws {
        let source = try scratch.file("source.mov", containing: Self.movieBytes)
        let library = scratch.url.appendingPathComponent("library", isDirectory: true)
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try Data("already here".utf8).write(to: library.appendingPathComponent("video.mov"))

        let item = try await PasteboardItem(exporting: Video(url: source))
        let imported = try await Video.$importDirectory.withValue(library) {
            try await item.value(as: Video.self)
        }

        let video = try #require(imported)
        #expect(video.url.lastPathComponent == "video 2.mov")
        #expect(try Data(contentsOf: video.url) == Self.movieBytes)
        #expect(try Data(contentsOf: library.appendingPathComponent("video.mov")) == Data("already here".utf8))
        let received = try #require(video.received)
        #expect(!received.isOriginalFile)
        #expect(received.file.lastPathComponent == "video.mov")
        #expect(!FileManager.default.fileExists(atPath: received.file.path), "the temporary copy is deleted")
    }

    @Test func copyPicksTheNextFreeNumber() throws {
        let source = try scratch.file("clip.mov", containing: Data("clip".utf8))
        let target = scratch.url.appendingPathComponent("target", isDirectory: true)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let received = ReceivedTransferredFile(source, isOriginalFile: true)

        let first = try received.copy(to: target)
        let second = try received.copy(to: target)
        let third = try received.copy(to: target)

        #expect([first, second, third].map(\.lastPathComponent) == ["clip.mov", "clip 2.mov", "clip 3.mov"])
        #expect(try Data(contentsOf: third) == Data("clip".utf8))
    }

    @Test(arguments: [("README", "README 2"), (".profile", ".profile 2"), ("archive.tar.gz", "archive.tar 2.gz")])
    func copyNumbersNamesWithoutAnExtension(name: String, expected: String) throws {
        let source = try scratch.file(name, containing: Data("x".utf8))
        let copy = try ReceivedTransferredFile(source, isOriginalFile: true).copy(to: scratch.url)

        #expect(copy.lastPathComponent == expected)
    }

    @Test func copyIntoAMissingDirectoryThrowsAStorageError() throws {
        let source = try scratch.file("a.txt", containing: Data("a".utf8))
        let missing = scratch.url.appendingPathComponent("missing", isDirectory: true)

        let error = #expect(throws: PasteboardError.self) {
            try ReceivedTransferredFile(source, isOriginalFile: true).copy(to: missing)
        }
        #expect(error?.code == .storage)
    }

    @Test func exportingAMissingFileThrowsAStorageError() async throws {
        let missing = scratch.url.appendingPathComponent("gone.mov")

        let error = await #expect(throws: PasteboardError.self) {
            try await PasteboardItem(exporting: Video(url: missing))
        }
        #expect(error?.code == .storage)
    }

    @Test func importerErrorPassesThroughAsAConversionError() async throws {
        let item = PasteboardItem(data: Data("movie".utf8), type: .quickTimeMovie)

        // No import directory: the importer throws.
        let error = await #expect(throws: PasteboardError.self) { try await item.value(as: Video.self) }
        #expect(error?.code == .conversion)
        #expect(error?.message.contains("noImportDirectory") == true)
    }
}
