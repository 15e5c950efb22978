// Written as for Apple's platforms; only the import differs (there: `import CoreTransferable` and
// `import UniformTypeIdentifiers`).
import PasteboardKit

/// Many profiles at once, as comma-separated values: name, then bio.
struct ProfilesArchive: Equatable {
    var rows: [[String]]
    /// The archive's file on disk, when it already has one.
    var file: URL?

    init(rows: [[String]], file: URL? = nil) {
        self.rows = rows
        self.file = file
    }

    init(csvData: Data) throws {
        guard let text = String(data: csvData, encoding: .utf8) else { throw ArchiveError.notUTF8 }
        rows = text.split(separator: "\n").map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        file = nil
    }

    var supportsCSV: Bool { !rows.isEmpty }

    func convertToCSV() throws -> Data {
        Data(rows.map { $0.joined(separator: ",") }.joined(separator: "\n").utf8)
    }

    /// Writes the archive to a new file and returns its location.
    func createFile() async throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).csv")
        try convertToCSV().write(to: file)
        return file
    }

    enum ArchiveError: Error {
        case notUTF8
    }
}

extension ProfilesArchive: Transferable {
    static var transferRepresentation: some TransferRepresentation {
        FileRepresentation(contentType: .commaSeparatedText) { archive in
            if let file = archive.file {
                return SentTransferredFile(file)
            } else {
                let file = try await archive.createFile()
                return SentTransferredFile(file, allowAccessingOriginalFile: true)
            }
        } importing: { received in
            let data = try Data(contentsOf: received.file)
            return try ProfilesArchive(csvData: data)
        }
        .suggestedFileName("Profiles.csv")
        DataRepresentation(exportedContentType: .utf8PlainText) { archive in
            try archive.convertToCSV()
        }
        .exportingCondition { archive in archive.supportsCSV }
    }
}
