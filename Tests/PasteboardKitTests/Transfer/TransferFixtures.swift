import Foundation
import PasteboardKit

/// Types and helpers shared by the transfer tests, nested so they cannot clash with other suites' names.
enum TransferFixtures {
    /// A custom content type that conforms to JSON.
    static let profileType = ContentType(exportedAs: "com.example.profile", conformingTo: [.json])

    /// A custom type exported as JSON first and as its name (text) second.
    struct Profile: Codable, Transferable, Equatable, Sendable {
        var name: String
        var email: String

        static var transferRepresentation: some TransferRepresentation<Profile> {
            CodableRepresentation(contentType: TransferFixtures.profileType)
            ProxyRepresentation(exporting: \.name)
        }
    }

    /// A note whose HTML representation exists only when it has HTML.
    struct Note: Transferable, Equatable, Sendable {
        var text: String
        var html: String?

        static var transferRepresentation: some TransferRepresentation<Note> {
            DataRepresentation(exportedContentType: .html) { note in
                Data((note.html ?? "").utf8)
            }
            .exportingCondition { $0.html != nil }
            ProxyRepresentation(exporting: \.text) { text in
                Note(text: text, html: nil)
            }
        }
    }

    /// A table that transfers as comma-separated values.
    struct Table: Transferable, Equatable, Sendable {
        var rows: [[String]]

        static var transferRepresentation: some TransferRepresentation<Table> {
            DataRepresentation(contentType: .commaSeparatedText) { table in
                Data(table.rows.map { $0.joined(separator: ",") }.joined(separator: "\n").utf8)
            } importing: { data in
                let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
                return Table(
                    rows: lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
            }
        }
    }

    /// Export-only: a report that can be copied as Markdown but never pasted back.
    struct Report: Transferable, Sendable {
        var title: String

        static var transferRepresentation: some TransferRepresentation<Report> {
            DataRepresentation(exportedContentType: .markdown) { report in Data("# \(report.title)\n".utf8) }
        }
    }

    /// Import-only: a count read from any plain text holding a number.
    struct Count: Transferable, Equatable, Sendable {
        var value: Int

        static var transferRepresentation: some TransferRepresentation<Count> {
            DataRepresentation(importedContentType: .plainText) { data in
                guard let value = Int(String(decoding: data, as: UTF8.self)) else {
                    throw CountError.notANumber
                }
                return Count(value: value)
            }
        }

        enum CountError: Error { case notANumber }
    }

    /// Two representations of the same type: the first one whose condition holds wins.
    struct Greeting: Transferable, Sendable {
        var isFormal: Bool

        static var transferRepresentation: some TransferRepresentation<Greeting> {
            DataRepresentation(exportedContentType: .utf8PlainText) { _ in Data("Good day".utf8) }
                .exportingCondition { $0.isFormal }
            DataRepresentation(exportedContentType: .utf8PlainText) { _ in Data("Hi".utf8) }
            DataRepresentation(exportedContentType: .html) { _ in Data("<p>Hi</p>".utf8) }
        }
    }

    /// A movie file; the importer copies the received file into `Video.importDirectory`.
    struct Video: Transferable, Sendable {
        var url: URL
        /// What the importer received, recorded to check it afterwards.
        var received: ReceivedTransferredFile?

        @TaskLocal static var importDirectory: URL?

        static var transferRepresentation: some TransferRepresentation<Video> {
            FileRepresentation(contentType: .quickTimeMovie) { video in
                SentTransferredFile(video.url, allowAccessingOriginalFile: true)
            } importing: { received in
                guard let directory = Video.importDirectory else { throw VideoError.noImportDirectory }
                return Video(url: try received.copy(to: directory), received: received)
            }
            .suggestedFileName("video.mov")
        }

        enum VideoError: Error { case noImportDirectory }
    }
}

/// A fresh temporary directory, removed when the last reference goes away.
final class TransferScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pb-transfer-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Best effort: a leftover temporary directory is harmless, and deinit cannot throw.
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `data` to a file named `name` in the directory and returns its location.
    func file(_ name: String, containing data: Data) throws -> URL {
        let file = url.appendingPathComponent(name, isDirectory: false)
        try data.write(to: file)
        return file
    }
}
