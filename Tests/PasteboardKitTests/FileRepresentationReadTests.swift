import Foundation
import PasteboardKit
import Testing

/// A representation backed by a file that goes away: its bytes are not passed off as an empty payload.
@Suite struct FileRepresentationReadTests {
    @Test func aVanishedFileIsNoDataAndSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pb-rep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { _ = try? FileManager.default.removeItem(at: directory) }  // cleanup of a test directory
        let file = directory.appendingPathComponent("payload.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: file)
        var item = PasteboardItem()
        try item.setFile(file, forType: .png)
        #expect(item.data(forType: .png) == Data([0x89, 0x50, 0x4E, 0x47]))

        try FileManager.default.removeItem(at: file)
        #expect(item.data(forType: .png) == nil)
        let representation = try #require(item.representations.first)
        let error = try #require(throws: PasteboardError.self) { try representation.contents() }
        #expect(error.code == .storage)
        // The file system's own error is kept behind the message; equality still compares code and message only.
        #expect(error.cause != nil)
        #expect(error == PasteboardError(.storage, error.message))
        #expect(representation.data.isEmpty)
    }
}
