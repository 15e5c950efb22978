import Foundation
import SystemSupport
import Testing
@testable import PasteboardSync

/// A failed file operation in the sync folder keeps the system call and errno behind its message.
@Suite struct SyncErrorCauseTests {
    @Test func aMissingFileKeepsTheFailedOpenAsItsCause() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("pb-missing-\(UUID().uuidString)")
        let error = try #require(throws: SyncError.self) { try AtomicFile.read(missing, limit: 1024) }
        #expect(error.code == .io)
        let cause = try #require(error.cause as? SystemError)
        #expect(cause == SystemError("open", errno: ENOENT))
        #expect(error.message.contains(cause.reason))
    }

    @Test func aDirectoryThatCannotBeMadeKeepsTheFileSystemError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pb-cause-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { _ = try? FileManager.default.removeItem(at: directory) }  // cleanup of a test directory
        // A regular file where the destination's directory would have to be.
        let blocker = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let files = AtomicFile(staging: directory.appendingPathComponent("staging"))
        let error = try #require(throws: SyncError.self) {
            try files.write(Data("payload".utf8), to: blocker.appendingPathComponent("segment"))
        }
        #expect(error.code == .io)
        #expect(error.cause != nil)
        #expect(!FileManager.default.fileExists(atPath: blocker.appendingPathComponent("segment").path))
    }
}
